# generator.sh — sourced by the build scripts. `cmake_generator DIR` prints the CMake generator arguments for a
# build directory: `-G Ninja` when ninja is installed and DIR is not configured yet (Ninja starts a target's
# compiles before the libraries it links are done, so both cores stay busy to the end of a build — Make waits
# for attnlab_core's last file before it starts any test or CLI file); nothing for a directory already
# configured, which keeps the generator it was made with (CMake refuses to switch one in place).
cmake_generator() {
  if [[ ! -e "$1/CMakeCache.txt" ]] && command -v ninja >/dev/null; then printf '%s\n' -G Ninja; fi
}
