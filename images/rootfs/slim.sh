#!/bin/bash
# slim.sh ROOT: shrink a freshly bootstrapped rootfs so OS bundles download fast over slirp.
# Runs as mmdebstrap's customize hook (inside its user namespace, ROOT is the target tree).
set -euo pipefail
ROOT=$1

# Kernel modules the QEMU machine needs at run time (everything else the VM never loads);
# their dependencies are added from modules.dep. NVMe, ext4 and the TPM driver are built into the cloud kernel.
# dm-crypt and the ciphers it and cryptsetup ask the kernel for (by name, not in modules.dep): the encrypted image.
KEEP_MODULES=(virtio_net virtio_pci virtio_blk virtio_rng vfat nls_cp437 nls_ascii nls_utf8 nls_iso8859-1 efivarfs
  dm_crypt xts ecb aesni_intel aes_generic algif_skcipher af_alg)

for moddir in "$ROOT"/lib/modules/*/; do
  kver=$(basename "$moddir")
  keep=$(awk -v want=" ${KEEP_MODULES[*]} " '
    function name(path) { n = path; sub(/.*\//, "", n); sub(/\.ko.*$/, "", n); gsub(/-/, "_", n); return n }
    { sub(/:$/, "", $1); deps[$1] = $0; mod[name($1)] = $1 }
    END {
      gsub(/-/, "_", want); split(want, names, " ")
      for (i in names) if (names[i] in mod) queue[++n] = mod[names[i]]
      for (i = 1; i <= n; i++) {
        path = queue[i]; if (path in seen) continue; seen[path] = 1; print path
        m = split(deps[path], parts, " ")
        for (j = 2; j <= m; j++) queue[++n] = parts[j]
      }
    }' "$moddir/modules.dep")
  find "$moddir/kernel" -name '*.ko*' -printf 'kernel/%P\n' | LC_ALL=C sort >"$ROOT/tmp/all-modules"
  printf '%s\n' "$keep" | sed 's|^kernel/|kernel/|' | LC_ALL=C sort >"$ROOT/tmp/keep-modules"
  LC_ALL=C comm -23 "$ROOT/tmp/all-modules" "$ROOT/tmp/keep-modules" | sed "s|^|$moddir|" | xargs -r rm -f
  find "$moddir/kernel" -type d -empty -delete
  rm -f "$ROOT/tmp/all-modules" "$ROOT/tmp/keep-modules"
  chroot "$ROOT" depmod -a "$kver"
done

# No initramfs: the cloud kernel mounts the NVMe root itself (see images/README.md)
rm -f "$ROOT"/boot/initrd.img* "$ROOT"/initrd.img "$ROOT"/initrd.img.old "$ROOT"/boot/System.map-*

# Caches, logs and data nothing on the device reads
rm -rf "$ROOT"/var/cache/apt/* "$ROOT"/var/lib/apt/lists/* "$ROOT"/var/cache/debconf/*-old \
  "$ROOT"/var/log/* "$ROOT"/usr/share/bug "$ROOT"/usr/share/common-licenses "$ROOT"/usr/share/i18n \
  "$ROOT"/usr/share/zsh "$ROOT"/usr/share/bash-completion

# Sources of udev's hwdb (hwdb.bin is kept) and iconv modules (node and systemd use UTF-8 only)
rm -rf "$ROOT"/usr/lib/udev/hwdb.d/*.hwdb "$ROOT"/usr/lib/x86_64-linux-gnu/gconv
