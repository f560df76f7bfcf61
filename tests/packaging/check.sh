#!/usr/bin/env bash
# Checks that vseg can be used from outside: (1) installed, through its
# pkg-config file; (2) as a Meson subproject through dependency('vseg').
# Usage: check.sh <source root> <build dir>
set -euo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# (1) meson install into a staging prefix, then compile with pkg-config.
DESTDIR="$work/stage" meson install -C "$build" --no-rebuild --quiet >/dev/null
prefix=$(meson introspect "$build" --buildoptions | python3 -c \
  'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')
libdir=$(meson introspect "$build" --buildoptions | python3 -c \
  'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="libdir"][0])')
root="$work/stage$prefix"
pcdir="$root/$libdir/pkgconfig"
[ -f "$pcdir/vseg.pc" ] || { echo "no vseg.pc installed in $pcdir"; exit 1; }
[ -f "$root/include/vseg/vseg.hpp" ] || { echo "headers not installed"; exit 1; }
flags=$(PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_SYSROOT_DIR="$work/stage" pkg-config --cflags --libs vseg)
# A sanitized library (the ASan+UBSan build) needs a consumer built with the
# same sanitizer: its runtime must come first in the program's libraries.
sanitize=$(meson introspect "$build" --buildoptions | python3 -c \
  'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="b_sanitize"][0])')
sanitizer_flags=()
[ "$sanitize" = none ] || sanitizer_flags=("-fsanitize=$sanitize")
c++ -std=c++20 "${sanitizer_flags[@]}" "$src/tests/packaging/consumer.cpp" $flags -o "$work/consumer"
LD_LIBRARY_PATH="$root/$libdir" "$work/consumer"
# The installed VCODE tool, when built, runs a program with the libraries
# installed beside it (libvseg-vcode.so, and its x86-64-v3 copy under
# glibc-hwcaps/, which the loader takes where the CPU has it).
if [ -x "$root/bin/vseg-vcode" ]; then
  printf 'FUNC MAIN1_1\nCONST INT 2\nCONST INT 3\n+ INT\nRET\n' > "$work/add.vcode"
  out=$(LD_LIBRARY_PATH="$root/$libdir" "$root/bin/vseg-vcode" "$work/add.vcode")
  [ "$out" = "( 5 )" ] || { echo "installed vseg-vcode printed '$out', not '( 5 )'"; exit 1; }
fi

# (2) a Meson project with vseg as a subproject.
mkdir -p "$work/proj/subprojects"
ln -s "$src" "$work/proj/subprojects/vseg"
cp "$src/tests/packaging/consumer.cpp" "$work/proj/"
cat > "$work/proj/meson.build" <<'MESON'
project('consumer', 'cpp', default_options : ['cpp_std=c++20'])
subproject('vseg', default_options : ['tests=false', 'examples=false', 'bench=disabled',
  'mpi=disabled', 'vcode=disabled', 'hdf5=disabled'])
executable('consumer', 'consumer.cpp', dependencies : dependency('vseg'))
MESON
meson setup "$work/proj/build" "$work/proj" >/dev/null
ninja -C "$work/proj/build" >/dev/null
"$work/proj/build/consumer"
