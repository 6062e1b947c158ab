# The disk layout every part of the system relies on (sourced). GPT partition GUIDs are fixed so
# GRUB and the kernel can name a slot (root=PARTUUID=...) whatever filesystem is written into it.
ESP_MIB=32
SLOT_MIB=768
DATA_MIB=64
# the encrypted image's data partition: a LUKS2 header, then the filesystem (images/lib/luks-data.ts)
DATA_LUKS_HEADER_MIB=16
# the encrypted image's factory key on the ESP, until the first boot has enrolled the TPM with it
FACTORY_KEY_ESP_PATH=EFI/outpost/factory-data-key
ESP_FAT_ID=1234ABCD # FAT volume id: GRUB finds the ESP with `search --fs-uuid 1234-ABCD`
DISK_GUID=00000000-0000-4000-8000-0000000000d0
ESP_GUID=00000000-0000-4000-8000-0000000000e5
ROOT_A_GUID=00000000-0000-4000-8000-00000000000a
ROOT_B_GUID=00000000-0000-4000-8000-00000000000b
DATA_GUID=00000000-0000-4000-8000-0000000000da
TYPE_ESP=C12A7328-F81F-11D2-BA4B-00A0C93EC93B
TYPE_ROOT_X86_64=4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709
TYPE_LINUX_DATA=0FC63DAF-8483-4772-8E79-3D69D8477DE4
# partition starts in MiB (1 MiB alignment, GPT header before the first)
ESP_START=1
ROOT_A_START=$((ESP_START + ESP_MIB))
ROOT_B_START=$((ROOT_A_START + SLOT_MIB))
DATA_START=$((ROOT_B_START + SLOT_MIB))
DISK_MIB=$((DATA_START + DATA_MIB + 1)) # + 1 MiB for the backup GPT
