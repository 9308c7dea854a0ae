# summary-file.sh — sourced by the batch scripts of models/tools/ that write one experiment summary per file:
#   summary FILE COMMAND...  runs COMMAND with its stdout to FILE.tmp and moves it to FILE when complete, so an
#   interrupted run leaves no partial file that the next run would skip; an existing FILE is kept (not run again).
summary() {
  local f=$1
  shift
  [ -f "$f" ] && return 0
  "$@" > "$f.tmp" && mv "$f.tmp" "$f"
}
