import { fileURLToPath } from 'node:url';

/** The checkout's root, with a trailing slash. */
export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
export const IMAGES_OUT = `${REPO}images/out`;
/** images/build-all.sh --encrypted: the image set with a LUKS2 data partition the TPM unlocks */
export const ENCRYPTED_IMAGES_OUT = `${IMAGES_OUT}/encrypted`;
/** the built `outpost` command line (npm run build) */
export const OUTPOST_CLI = `${REPO}control-plane/dist/cli/main.js`;
/** QEMU runs this once per guest connection to 10.0.2.100:8080 (guestfwd cmd:) */
export const RELAY_SCRIPT = fileURLToPath(new URL('./relay.mjs', import.meta.url));
export const OVMF_FIRMWARE = '/usr/share/ovmf/OVMF.fd';
