#!/usr/bin/env bash
# The man page, the completions, the README and docs/ against the tool itself:
#   tests/test_docs.sh JETFILTER DOC_DIR SOURCE_DIR
# 1. every option of every command's --help is in the man page and in the
#    bash and zsh completions; the man page renders without a warning;
# 2. bash completion completes commands, options and option values;
# 3. the zsh completion parses;
# 4. every option the README and the pages of docs/ show in a command (a
#    line starting with `jetfilter COMMAND`) is an option of that command,
#    and every option they name exists;
# 5. docs/cli.md names every option of every command (long or short form)
#    and every filter of the operation table;
# 6. every section of benchmarks/RESULTS.md that the code cites on one line
#    (RESULTS.md, then the name in quotes) exists, and every section of
#    docs/kernels/studies.md that the code and the docs cite so.
#   (JETFILTER may hold an emulator before the program: "qemu-aarch64 /b/jetfilter")
set -uo pipefail
read -ra J <<< "$1"
doc=$2 src=$3
fail=0
no() { echo "FAIL: $*"; fail=1; }

commands=$("${J[@]}" --help | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1} /^$/{if (on) exit}')
[ "$(echo "$commands" | wc -w)" -ge 8 ] || no "the command list: '$commands'"
checked=0
for c in $commands; do
  opts=$("${J[@]}" "$c" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+$' | sort -u)
  [ -n "$opts" ] || no "$c --help lists no options"
  for o in $opts; do
    checked=$((checked + 1))
    grep -qF -- "$(printf '%s' "$o" | sed 's/-/\\-/g')" "$doc/jetfilter.1" || no "man page: $c $o"
    grep -qE -- "(^| |\")$o( |\"|\\))" "$doc/jetfilter.bash" || no "bash completion: $c $o"
    grep -qF -- "$o" "$doc/_jetfilter" || no "zsh completion: $c $o"
  done
done
[ $checked -ge 100 ] || no "only $checked options checked"
echo "docs: $checked options of $(echo "$commands" | wc -w) commands in the man page and both completions"

if command -v groff > /dev/null; then
  warnings=$(groff -man -Tutf8 -ww -z "$doc/jetfilter.1" 2>&1)
  [ -z "$warnings" ] || no "groff: $warnings"
  groff -man -Tascii -P-cbou "$doc/jetfilter.1" 2> /dev/null | grep '^ *JETFILTER_BACKEND' > /dev/null ||
    no "man: no ENVIRONMENT"
else
  echo "docs: groff missing, the man page's rendering not checked"
fi

# bash: as the shell would call it
complete_words() { # prints COMPREPLY for the words given (the last one is completed)
  bash -c '
    source "$0"
    COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
    _jetfilter
    printf "%s\n" "${COMPREPLY[@]}"' "$doc/jetfilter.bash" "$@"
}
[ "$(complete_words jetfilter den)" = denoise ] || no "bash: jetfilter den<TAB>"
complete_words jetfilter denoise --ba | grep -x -- --backend > /dev/null || no "bash: denoise --ba<TAB>"
[ "$(complete_words jetfilter denoise --backend c | sort | tr '\n' ' ')" = "cpu cuda " ] ||
  no "bash: --backend c<TAB>: $(complete_words jetfilter denoise --backend c | tr '\n' ' ')"
complete_words jetfilter denoise -f auto | grep -x auto-impulse > /dev/null || no "bash: -f auto<TAB>"
complete_words jetfilter stream --pl | grep -x -- --planes > /dev/null || no "bash: stream --pl<TAB>"
complete_words jetfilter noise --salt | grep -x -- --salt-pepper > /dev/null || no "bash: noise --salt<TAB>"
( cd "$src" && complete_words jetfilter denoise samples/images/ret | grep -x samples/images/retina.jpg > /dev/null ) ||
  no "bash: file names"
echo "docs: bash completion completes commands, options, choices and files"

if command -v zsh > /dev/null; then
  zsh -n "$doc/_jetfilter" || no "zsh: the completion does not parse"
  echo "docs: the zsh completion parses"
else
  echo "docs: zsh missing, its completion not parsed"
fi

# the command lines of the README and docs/ use options their command has
pages=("$src/README.md" "$src"/docs/*.md)
readme_checked=0
while IFS= read -r line; do
  page=${line%%:*} line=${line#*:}
  c=$(echo "$line" | awk '{print $2}')
  grep -qx "$c" <<< "$commands" || continue
  help=$("${J[@]}" "$c" --help)
  for o in $(echo "$line" | grep -oE -- '(^| )--[a-z0-9-]+' | tr -d ' '); do
    readme_checked=$((readme_checked + 1))
    echo "$help" | grep -E -- "(^| )$o( |,|$)" > /dev/null || no "${page#$src/}: jetfilter $c $o is not an option of $c"
  done
done < <(grep -oE 'jetfilter [a-z]+( [^|#`]*)?' "${pages[@]}")
[ $readme_checked -ge 20 ] || no "only $readme_checked options found in the pages' command lines"
echo "docs: $readme_checked options in the command lines of the README and docs/ exist"
# every --option the pages name in a span of jetfilter's (`jetfilter ...`
# or `--option ...`) is an option of some command
all_opts=$(for c in $commands; do "${J[@]}" "$c" --help; done | grep -oE '^ +(-[a-zA-Z], )?--[a-z0-9-]+' |
           grep -oE -- '--[a-z0-9-]+$' | sort -u)
named=0
for o in $(grep -ohE '`[^`]*`' "${pages[@]}" | grep -E '^`(jetfilter |-)' |
           grep -oE -- '(^|[` |(])--[a-z][a-z0-9-]+([` ),]|$)' |
           grep -oE -- '--[a-z0-9-]+' | sort -u); do  # --x=...: another tool's (sbatch --array=)
  named=$((named + 1))
  grep -qx -- "$o" <<< "$all_opts" || no "the docs name $o, which no command has"
done
echo "docs: $named options named in the README and docs/ exist"
# docs/cli.md names every option of every command, and every filter
cli_doc="$src/docs/cli.md"
documented=0
for c in $commands; do
  while IFS= read -r pair; do
    short=$(echo "$pair" | grep -oE -- '^-[a-zA-Z]' || true)
    long=$(echo "$pair" | grep -oE -- '--[a-z0-9-]+$')
    documented=$((documented + 1))
    grep -qE -- "(^|[^a-z0-9-])$long([^a-z0-9-]|$)" "$cli_doc" ||
      { [ -n "$short" ] && grep -qE -- "(^|[ \`(])$short([ ,\`]|$)" "$cli_doc"; } ||
      no "docs/cli.md does not name $c $long"
  done < <("${J[@]}" "$c" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z0-9-]+' | sed 's/^ *//')
done
for f in $("${J[@]}" denoise --help | awk '/^filters \(--filter NAME\):/{on=1; next} on && /^  [a-z]/{print $1}'); do
  documented=$((documented + 1))
  grep -qE -- "(-f |\\\||\`)$f(\\\||\`| )" "$cli_doc" || no "docs/cli.md does not name the filter $f"
done
[ $documented -ge 100 ] || no "only $documented options and filters looked for in docs/cli.md"
echo "docs: docs/cli.md names the $documented options and filters"
# the sections the code cites exist: `page` cited as PAGE, "Section"
cited_sections() { # FILE PAGE-PATTERN PAGE-NAME WHERE...
  local file=$1 pattern=$2 page=$3 heads name cited=0
  shift 3
  heads=$(grep -E '^#{1,4} ' "$src/$file")
  while IFS= read -r name; do
    cited=$((cited + 1))
    grep -qiF -- "$name" <<< "$heads" || no "the code cites $page \"$name\", which has no such section"
  done < <(cd "$src" && grep -rhoE "$pattern"'(,| \() ?"[A-Za-z0-9 `=,:-]+"' --include='*.c' --include='*.h' \
             --include='*.cu' --include='*.cuh' --include='*.py' --include='*.sh' "$@" 2> /dev/null |
           sed -E 's/^[^"]*"//; s/"$//' | sort -u)
  [ $cited -ge 5 ] || no "only $cited $page sections cited found"
  echo "docs: the $cited $page sections cited exist"
}
cited_sections benchmarks/RESULTS.md 'RESULTS\.md' RESULTS.md \
  core io filters pipeline jobs cli calib python gst scripts benchmarks tests
# the studies the variant tables and the kernel notes cite
cited_sections docs/kernels/studies.md 'studies\.md' studies.md --include='*.md' \
  core io filters pipeline jobs cli calib python gst scripts benchmarks tests docs
exit $fail
