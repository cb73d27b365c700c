# Sourced by benches/callgrind.sh and benches/startup.sh: `instructions CMD...` prints the
# callgrind instruction count (the summary line) of one run of CMD, using "$work" (a
# temporary directory the caller made) for callgrind's output.
instructions() {
  local count=""
  # A loaded machine occasionally leaves an empty summary; such a run is retried.
  for _ in 1 2 3; do
    valgrind --tool=callgrind --callgrind-out-file="$work/out" "$@" >"$work/stdout" 2>"$work/stderr" \
      || { cat "$work/stderr" >&2; exit 1; }
    count=$(awk '/^summary:/ {print $2}' "$work/out")
    [ -n "$count" ] && [ "$count" != 0 ] && break
  done
  echo "$count"
}
