# SPDX-License-Identifier: MIT
# Sourced by the system-emulation lanes (ci/armv7-system.sh,
# ci/guest-x86.sh): Debian kernel packages kept in the CI cache, outside
# the checkout, each with the SHA256 of the apt index it was fetched
# through, checked again on every reuse.

# kernel_cached CACHE GLOB: the newest package in CACHE matching GLOB whose
# .sha256 checks (printed; nothing if none); any that does not is removed.
kernel_cached() {
    for d in $(ls "$1"/$2 2>/dev/null | sort -r); do
        if [ -f "$d.sha256" ] && (cd "$1" && sha256sum -c --status "$(basename "$d").sha256"); then
            echo "$d"; return 0
        fi
        echo "kernel-cache: $d does not match its .sha256: removed" >&2
        rm -f "$d" "$d.sha256"
    done
}

# kernel_keep FILE SUM CACHE: checks the downloaded FILE against the index's
# SUM and moves it, with its .sha256, into CACHE (its new path printed).
kernel_keep() {
    echo "$2  $(basename "$1")" >"$1.sha256"
    (cd "$(dirname "$1")" && sha256sum -c --status "$(basename "$1").sha256") ||
        { echo "kernel-cache: $(basename "$1") does not match the index's SHA256 $2" >&2; return 1; }
    mv "$1" "$1.sha256" "$3/"
    echo "$3/$(basename "$1")"
}

# kernel_unpack DEB DIR: DIR/kernel/vmlinuz from DEB, once per package.
kernel_unpack() {
    if [ "$(cat "$2/kernel/from" 2>/dev/null)" != "$(basename "$1")" ]; then
        rm -rf "$2/kernel" "$2/boot"
        dpkg-deb --fsys-tarfile "$1" | tar -x -C "$2" --wildcards './boot/vmlinuz-*'
        mkdir -p "$2/kernel"; mv "$2"/boot/vmlinuz-* "$2/kernel/vmlinuz"; rmdir "$2/boot"
        basename "$1" >"$2/kernel/from"
    fi
}
