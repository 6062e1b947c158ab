/** Public keys made with OpenSSH 9.2's ssh-keygen (their private halves were thrown away). */
export const SSH_KEYS = {
  ed25519: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILXNHkEUApPE88OR8mPHl+E2GYZJY3lNw8X5aLW1RFbp me@laptop',
  rsa: 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC3j4g+stojcTouKrbZ0FlJJg1dO45ReeOFmer4kuOn/jxDBOmC/Oy2DzFa9iuKt3ktaBzTE3R1cwdeNt5RxxR4X68sLnhTER/jhbSmun0ceqgFeBLdoF0SGwwcd5czuyGsjJLU6CXWwVmSAi898C3YozVQ639ofjxAsdRxk8J/qCNCPuJZLF2G5UnOOmazDDlyqmy/q6VZkQYN10F9KRnOZUe1i64kAzZs/LiCnQ/4jVC5NB4PxOlkvCUeqlUMlLfyQ9Wv+CvbgbLcuYTQI7aGOWekufmxwEAh1NQAJ0z/wtPMpwBq1PUYooIzo3jEKORt6lcC9mWYwTFMeYWDOxIf me@laptop',
  ecdsa256:
    'ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBBc+WIVYFASJ+ObmuKw7aTjvGbF71joiN5WNPz5OM30BcTzve6OBHBn5yMl2LPyz5K0INh1aK+Tu9mwSnNOkIE4= me@laptop',
  ecdsa384:
    'ecdsa-sha2-nistp384 AAAAE2VjZHNhLXNoYTItbmlzdHAzODQAAAAIbmlzdHAzODQAAABhBBlZa1F/XlO6XUVXX8hQ/RAKTXESraQZ9IsXKl3eiWqH5eNyGwkE0lmb92dM1uF0RWedaY/3lSDc+/OZnQ19SkHC91rJgROgUwEgfiIxy8L29EfXpknAyiAtwWoKlrcxmg== me@laptop',
  ecdsa521:
    'ecdsa-sha2-nistp521 AAAAE2VjZHNhLXNoYTItbmlzdHA1MjEAAAAIbmlzdHA1MjEAAACFBAHTdFc12/VGp8xcEdvKeL6gosh7XZagq5Hel861GWGfy6lcnMaLBs5SO0/+WMFcdamDL/LejIN2P68wA/OI/n82wQFG2e9oqfoN7Whcfv7AkFX2Fu3xwcVQ2SUpt7+FnQn7i+DkKHm+HlasEA5iHsdkkYJLyb2h2iLsa8I4Hk2HcEDBFw== me@laptop',
} as const;

/** SSH wire-format strings (RFC 4251 §5) joined into a base64 key blob. */
export function sshBlob(...fields: (string | Buffer)[]): string {
  const parts = fields.map((field) => {
    const bytes = typeof field === 'string' ? Buffer.from(field, 'latin1') : field;
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    return Buffer.concat([length, bytes]);
  });
  return Buffer.concat(parts).toString('base64');
}
