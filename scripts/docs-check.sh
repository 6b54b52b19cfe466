#!/usr/bin/env bash
# Runs the examples of README.md and docs/*.md that are marked runnable, and fails when one
# prints something else than the text shows.
#
# The convention: a fenced block whose info string is `console` is runnable.
#
#     ```console
#     $ mancala perft --depth 3
#     depth 1: 6
#     ...
#     $ mancala rules vaccean --lang pt
#     ...
#     ```
#
# A block may be indented (inside a list item): its lines lose that indentation.
# - A line starting with `$ ` is a command, run by bash in the repository's root, with
#   `mancala` resolved to $MANCALA_BIN, else target/release/mancala (CARGO_TARGET_DIR is
#   honoured; the binary is built with `cargo build --release --locked --bin mancala` when
#   missing). scripts/test.sh passes the debug build, whose rules, engine and tables are
#   optimised as in a release (Cargo.toml's dev profile). LC_ALL=C, so the program speaks
#   English.
# - The lines after it, up to the next `$ ` line or the end of the block, are its expected
#   standard output (standard error is not compared; write `2>&1` to compare it). A command
#   must exit with status 0 (write `; echo "exit $?"` to show a failure on purpose).
# - A line `...` stands for any number of lines (none included). Trailing whitespace and
#   trailing blank lines are ignored on both sides.
# - Each command has 10 s (DOCS_CHECK_TIMEOUT); examples should take well under 2 s.
#
# Blocks with any other info string (or none) are never run. A failure names the file and
# the line of the command, and shows the expected and the actual output.
#
#     bash scripts/docs-check.sh [FILE.md ...]      (default: README.md docs/*.md)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

target="${CARGO_TARGET_DIR:-$root/target}"
bin="${MANCALA_BIN:-$target/release/mancala}"
if [ -z "${MANCALA_BIN:-}" ] && [ ! -x "$bin" ]; then
  echo "== building $bin"
  cargo build --release --locked --bin mancala
fi

# An absolute path, for the link below.
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
ln -s "$bin" "$tmp/bin/mancala"

if [ $# -gt 0 ]; then files=("$@"); else files=(README.md docs/*.md); fi

# match EXP_INDEX ACT_INDEX: do expected[i..] and actual[j..] match, `...` standing for any
# number of lines?
match() {
  local i=$1 j=$2
  while [ "$i" -lt "${#expected[@]}" ]; do
    if [ "${expected[$i]}" = "..." ]; then
      local k
      for ((k = j; k <= ${#actual[@]}; k++)); do
        if match $((i + 1)) "$k"; then return 0; fi
      done
      return 1
    fi
    [ "$j" -lt "${#actual[@]}" ] || return 1
    [ "${expected[$i]}" = "${actual[$j]}" ] || return 1
    i=$((i + 1)); j=$((j + 1))
  done
  [ "$j" -eq "${#actual[@]}" ]
}

# Drops trailing whitespace of every line and trailing blank lines of the whole.
trim_into() {
  local -n into=$1
  shift
  into=("$@")
  local n
  for n in "${!into[@]}"; do
    into[$n]="${into[$n]%"${into[$n]##*[![:space:]]}"}"
  done
  while [ "${#into[@]}" -gt 0 ] && [ -z "${into[-1]}" ]; do unset 'into[-1]'; done
}

run_one() {  # FILE LINE COMMAND, expected lines in `pending`
  local file=$1 line=$2 cmd=$3 out status=0
  total=$((total + 1))
  out=$(cd "$root" && PATH="$tmp/bin:$PATH" LC_ALL=C LANG=C LC_MESSAGES= \
        timeout "${DOCS_CHECK_TIMEOUT:-10}" bash -c "$cmd" 2>"$tmp/stderr") || status=$?
  local raw=()
  if [ -n "$out" ]; then mapfile -t raw <<<"$out"; fi
  trim_into expected "${pending[@]+"${pending[@]}"}"
  trim_into actual "${raw[@]+"${raw[@]}"}"
  if [ "$status" -ne 0 ]; then
    failed=$((failed + 1))
    echo "FAIL $file:$line: \`$cmd\` exited with status $status"
    sed 's/^/  stderr: /' "$tmp/stderr" | head -20
  elif ! match 0 0; then
    failed=$((failed + 1))
    echo "FAIL $file:$line: \`$cmd\` printed something else"
    echo "  expected:"; printf '    | %s\n' "${expected[@]+"${expected[@]}"}"
    echo "  actual:"; printf '    | %s\n' "${actual[@]+"${actual[@]}"}"
  fi
}

total=0
failed=0
expected=()
actual=()
for file in "${files[@]}"; do
  in_block=0
  fence=""
  indent=""
  cmd=""
  cmd_line=0
  pending=()
  n=0
  while IFS= read -r text || [ -n "$text" ]; do
    n=$((n + 1))
    if [ "$in_block" -eq 0 ]; then
      if [[ "$text" =~ ^([\ ]*)(\`\`\`+)console[[:space:]]*$ ]]; then
        in_block=1; indent=${BASH_REMATCH[1]}; fence=${BASH_REMATCH[2]}; cmd=""; pending=()
      fi
      continue
    fi
    text=${text#"$indent"}
    if [ "$text" = "$fence" ]; then
      [ -n "$cmd" ] && run_one "$file" "$cmd_line" "$cmd"
      in_block=0; cmd=""; pending=()
      continue
    fi
    if [[ "$text" == '$ '* ]]; then
      [ -n "$cmd" ] && run_one "$file" "$cmd_line" "$cmd"
      cmd=${text#\$ }; cmd_line=$n; pending=()
    elif [ -n "$cmd" ]; then
      pending+=("$text")
    fi
  done <"$file"
  if [ "$in_block" -eq 1 ]; then
    echo "FAIL $file: a console block is not closed"
    failed=$((failed + 1))
  fi
done

if [ "$failed" -ne 0 ]; then
  echo "docs examples: $failed of $total failed"
  exit 1
fi
echo "docs examples: $total passed"
