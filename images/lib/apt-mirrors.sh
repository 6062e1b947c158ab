# Reads the Debian mirrors this machine's apt is configured with (never hard-code a host).
# Sourced. Prints "URI SUITE" pairs of every enabled deb source, one line each.

apt_source_pairs() {
  local file
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$file" ] || continue
    # one-line format: deb [options] URI SUITE COMPONENT...
    sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$file" | awk '$1 == "deb" { print $2, $3 }'
  done
  for file in /etc/apt/sources.list.d/*.sources; do
    [ -f "$file" ] || continue
    # deb822 format: paragraphs of "Key: value"; emit every URI x Suite of enabled "deb" paragraphs
    awk '
      function flush() {
        if (types ~ /(^| )deb( |$)/ && enabled != "no")
          for (u = 1; u <= nu; u++) for (s = 1; s <= ns; s++) print uris[u], suites[s]
        types = ""; enabled = ""; nu = 0; ns = 0
      }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      {
        key = tolower($1); sub(/:$/, "", key)
        if (key == "types") { $1 = ""; types = $0 " " }
        else if (key == "enabled") enabled = tolower($2)
        else if (key == "uris") for (i = 2; i <= NF; i++) uris[++nu] = $i
        else if (key == "suites") for (i = 2; i <= NF; i++) suites[++ns] = $i
      }
      END { flush() }
    ' "$file"
  done
}

# mirror_for_suite SUITE: the first configured URI serving SUITE (e.g. bookworm, bookworm-security)
mirror_for_suite() {
  apt_source_pairs | awk -v suite="$1" '$2 == suite { print $1; exit }'
}
