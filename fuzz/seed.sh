#!/bin/sh
# Builds the seed corpora from the repository's fixtures (real tool output)
# and contracts. Run from the repository root: sh fuzz/seed.sh
set -eu
cd "$(dirname "$0")"
mkdir -p corpus/profiles corpus/rewrite corpus/contract
for f in ../fixtures/*/*/stdout ../fixtures/*/*/stderr; do
    [ -s "$f" ] || continue
    case_dir=$(dirname "$f")
    name=$(basename "$(dirname "$case_dir")")-$(basename "$case_dir")-$(basename "$f")
    # Exit byte 1 (failure) then the output, capped: libFuzzer's default
    # max_len is small and huge seeds only slow it down.
    { printf '\001'; head -c 65536 "$f"; } > "corpus/profiles/$name"
done
for f in ../contracts/*.toml; do
    cp "$f" "corpus/contract/$(basename "$f")"
done
i=0
for line in 'cargo test' 'pytest -x && ruff check .' 'uv run pytest; echo done' \
    'npx jest --ci || true' 'make test | cat' 'go test ./... 2>&1' \
    'echo $(git rev-parse HEAD)' 'cat <<EOF' 'docker exec c pytest -q' \
    "FOO=1 mypy src 'a b'" 'nix develop --command cargo build'; do
    i=$((i + 1))
    printf '%s' "$line" > "corpus/rewrite/seed-$i"
done
echo "seeded: $(ls corpus/profiles | wc -l) outputs, $(ls corpus/contract | wc -l) contracts, $i command lines"
