//! `ctx rewrite`: a table of realistic agent command lines and their
//! expected rewrites, checked three ways: against the expectation, against
//! `bash -n` (a line bash rejects is never rewritten, and every rewrite
//! still parses), and against the argv bash really builds for each simple
//! command (a `command_not_found_handle` probe with an empty PATH, so that
//! nothing in the table is actually run). Then the CLI's printed forms.

use std::collections::HashSet;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use ctx::rewrite::builtins::is_shell_own;
use ctx::rewrite::{command_words, lexer, rewrite};

/// (line, expected rewrite; "=" for unchanged).
const TABLE: &[(&str, &str)] = &[
    // Test runners, as agents type them.
    ("pytest", "ctx run -- pytest"),
    ("pytest -x -q tests/", "ctx run -- pytest -x -q tests/"),
    ("pytest -q --tb=short", "ctx run -- pytest -q --tb=short"),
    (
        "pytest tests/test_api.py::test_create -vv",
        "ctx run -- pytest tests/test_api.py::test_create -vv",
    ),
    (
        "pytest -k 'a and not b'",
        "ctx run -- pytest -k 'a and not b'",
    ),
    (
        "pytest -k \"test_x or test_y\"",
        "ctx run -- pytest -k \"test_x or test_y\"",
    ),
    (
        "pytest -p no:cacheprovider",
        "ctx run -- pytest -p no:cacheprovider",
    ),
    ("py.test tests", "ctx run -- py.test tests"),
    ("/usr/bin/pytest", "ctx run -- /usr/bin/pytest"),
    (".venv/bin/pytest -x", "ctx run -- .venv/bin/pytest -x"),
    ("python -m pytest", "ctx run -- python -m pytest"),
    (
        "python -m pytest -k slow",
        "ctx run -- python -m pytest -k slow",
    ),
    (
        "python3 -m pytest tests/unit",
        "ctx run -- python3 -m pytest tests/unit",
    ),
    ("python3.12 -m pytest", "ctx run -- python3.12 -m pytest"),
    (
        "python -m unittest discover",
        "ctx run -- python -m unittest discover",
    ),
    ("python -m mypy src", "ctx run -- python -m mypy src"),
    ("uv run pytest", "ctx run -- uv run pytest"),
    (
        "uv run --with pytest-xdist pytest -n 4",
        "ctx run -- uv run --with pytest-xdist pytest -n 4",
    ),
    (
        "uv run python -m pytest",
        "ctx run -- uv run python -m pytest",
    ),
    ("poetry run pytest", "ctx run -- poetry run pytest"),
    (
        "poetry run pytest --cov=app",
        "ctx run -- poetry run pytest --cov=app",
    ),
    (
        "pipenv run python -m pytest",
        "ctx run -- pipenv run python -m pytest",
    ),
    ("pdm run pytest", "ctx run -- pdm run pytest"),
    ("hatch run pytest", "ctx run -- hatch run pytest"),
    (
        "source .venv/bin/activate && pytest",
        "source .venv/bin/activate && ctx run -- pytest",
    ),
    (
        ". venv/bin/activate; pytest -x",
        ". venv/bin/activate; ctx run -- pytest -x",
    ),
    (
        "source venv/bin/activate && python -m pytest -q",
        "source venv/bin/activate && ctx run -- python -m pytest -q",
    ),
    ("source .env && pytest", "source .env && ctx run -- pytest"),
    (
        ". ~/.cargo/env && cargo test",
        ". ~/.cargo/env && ctx run -- cargo test",
    ),
    ("npm test", "ctx run -- npm test"),
    ("npm t", "ctx run -- npm t"),
    ("npm run test", "ctx run -- npm run test"),
    (
        "npm run test -- --coverage",
        "ctx run -- npm run test -- --coverage",
    ),
    ("npm run test:unit", "ctx run -- npm run test:unit"),
    ("npm run build", "ctx run -- npm run build"),
    ("npm run lint", "ctx run -- npm run lint"),
    ("npm run typecheck", "ctx run -- npm run typecheck"),
    (
        "npm test --workspace=api",
        "ctx run -- npm test --workspace=api",
    ),
    ("npm --prefix web test", "ctx run -- npm --prefix web test"),
    ("pnpm test", "ctx run -- pnpm test"),
    ("pnpm run build", "ctx run -- pnpm run build"),
    ("pnpm -r test", "ctx run -- pnpm -r test"),
    (
        "pnpm --filter web lint",
        "ctx run -- pnpm --filter web lint",
    ),
    ("pnpm typecheck", "ctx run -- pnpm typecheck"),
    ("pnpm exec jest", "ctx run -- pnpm exec jest"),
    ("yarn test", "ctx run -- yarn test"),
    ("yarn lint", "ctx run -- yarn lint"),
    ("yarn run build", "ctx run -- yarn run build"),
    (
        "yarn workspace api test",
        "ctx run -- yarn workspace api test",
    ),
    ("bun test", "ctx run -- bun test"),
    ("bun run test", "ctx run -- bun run test"),
    ("npx jest", "ctx run -- npx jest"),
    (
        "npx jest src/api --runInBand",
        "ctx run -- npx jest src/api --runInBand",
    ),
    ("npx --yes jest", "ctx run -- npx --yes jest"),
    ("npx vitest run", "ctx run -- npx vitest run"),
    ("npx tsc --noEmit", "ctx run -- npx tsc --noEmit"),
    (
        "npx tsc -p tsconfig.build.json",
        "ctx run -- npx tsc -p tsconfig.build.json",
    ),
    (
        "npx eslint . --ext .ts",
        "ctx run -- npx eslint . --ext .ts",
    ),
    (
        "./node_modules/.bin/tsc --noEmit",
        "ctx run -- ./node_modules/.bin/tsc --noEmit",
    ),
    ("bunx tsc", "ctx run -- bunx tsc"),
    ("jest", "ctx run -- jest"),
    ("vitest run", "ctx run -- vitest run"),
    ("tsc --noEmit", "ctx run -- tsc --noEmit"),
    ("vue-tsc --noEmit", "ctx run -- vue-tsc --noEmit"),
    ("eslint src", "ctx run -- eslint src"),
    ("mypy src", "ctx run -- mypy src"),
    ("mypy --strict .", "ctx run -- mypy --strict ."),
    ("pyright", "ctx run -- pyright"),
    ("ruff check .", "ctx run -- ruff check ."),
    ("ruff check --fix src", "ctx run -- ruff check --fix src"),
    ("uv run ruff check", "ctx run -- uv run ruff check"),
    ("uv run mypy .", "ctx run -- uv run mypy ."),
    // Rust and Go.
    ("cargo test", "ctx run -- cargo test"),
    (
        "cargo test --workspace",
        "ctx run -- cargo test --workspace",
    ),
    (
        "cargo test -p core -- --nocapture",
        "ctx run -- cargo test -p core -- --nocapture",
    ),
    ("cargo build", "ctx run -- cargo build"),
    ("cargo build --release", "ctx run -- cargo build --release"),
    (
        "cargo check --all-targets",
        "ctx run -- cargo check --all-targets",
    ),
    (
        "cargo clippy --all-targets -- -D warnings",
        "ctx run -- cargo clippy --all-targets -- -D warnings",
    ),
    ("cargo +nightly test", "ctx run -- cargo +nightly test"),
    ("cargo --locked test", "ctx run -- cargo --locked test"),
    ("cargo nextest run", "ctx run -- cargo nextest run"),
    (
        "cargo nextest run --workspace",
        "ctx run -- cargo nextest run --workspace",
    ),
    ("cargo doc --no-deps", "ctx run -- cargo doc --no-deps"),
    ("cargo bench --no-run", "ctx run -- cargo bench --no-run"),
    ("go test ./...", "ctx run -- go test ./..."),
    (
        "go test -run TestX ./pkg/...",
        "ctx run -- go test -run TestX ./pkg/...",
    ),
    ("go test -race ./...", "ctx run -- go test -race ./..."),
    ("go build ./...", "ctx run -- go build ./..."),
    ("go vet ./...", "ctx run -- go vet ./..."),
    // Make and C.
    ("make", "ctx run -- make"),
    ("make test", "ctx run -- make test"),
    ("make -j8 check", "ctx run -- make -j8 check"),
    ("make -C build test", "ctx run -- make -C build test"),
    ("make CC=clang all", "ctx run -- make CC=clang all"),
    ("cd sub && make test", "cd sub && ctx run -- make test"),
    ("just test", "ctx run -- just test"),
    (
        "gcc -Wall -o hello hello.c",
        "ctx run -- gcc -Wall -o hello hello.c",
    ),
    ("cc -c main.c", "ctx run -- cc -c main.c"),
    (
        "clang++ -std=c++20 main.cpp",
        "ctx run -- clang++ -std=c++20 main.cpp",
    ),
    // Other ecosystems.
    ("npx playwright test", "ctx run -- npx playwright test"),
    ("deno test -A", "ctx run -- deno test -A"),
    ("dotnet test", "ctx run -- dotnet test"),
    ("mvn -q test", "ctx run -- mvn -q test"),
    ("mvn clean verify", "ctx run -- mvn clean verify"),
    ("./gradlew test", "ctx run -- ./gradlew test"),
    (
        "./gradlew build --info",
        "ctx run -- ./gradlew build --info",
    ),
    ("bundle exec rspec", "ctx run -- bundle exec rspec"),
    ("rspec spec/models", "ctx run -- rspec spec/models"),
    ("mix test", "ctx run -- mix test"),
    ("swift test", "ctx run -- swift test"),
    ("tox -e py312", "ctx run -- tox -e py312"),
    ("npx playwright show-report", "="),
    ("mvn spring-boot:run", "="),
    ("./gradlew bootRun", "="),
    ("dotnet run", "="),
    ("deno run main.ts", "="),
    // Chains: each part decided on its own.
    ("cd app && pytest", "cd app && ctx run -- pytest"),
    (
        "cd /repo && cargo test",
        "cd /repo && ctx run -- cargo test",
    ),
    (
        "cargo build && cargo test",
        "ctx run -- cargo build && ctx run -- cargo test",
    ),
    ("pytest || echo failed", "ctx run -- pytest || echo failed"),
    ("pytest; echo done", "ctx run -- pytest; echo done"),
    ("cd a;pytest", "cd a;ctx run -- pytest"),
    (
        "cd a&&pytest||tsc",
        "cd a&&ctx run -- pytest||ctx run -- tsc",
    ),
    (
        "pytest\ncargo test",
        "ctx run -- pytest\nctx run -- cargo test",
    ),
    (
        "pytest &&\n  cargo test",
        "ctx run -- pytest &&\n  ctx run -- cargo test",
    ),
    (
        "git status && cargo test",
        "git status && ctx run -- cargo test",
    ),
    ("npm ci && npm test", "npm ci && ctx run -- npm test"),
    (
        "pip install -e . && pytest",
        "pip install -e . && ctx run -- pytest",
    ),
    (
        "mkdir -p build && cd build && make",
        "mkdir -p build && cd build && ctx run -- make",
    ),
    ("echo 'a && pytest'", "="),
    (
        "echo \"a; pytest\" && pytest",
        "echo \"a; pytest\" && ctx run -- pytest",
    ),
    (
        "[[ -d .venv ]] && pytest",
        "[[ -d .venv ]] && ctx run -- pytest",
    ),
    (
        "[[ -f a && -f b ]] && cargo test",
        "[[ -f a && -f b ]] && ctx run -- cargo test",
    ),
    (
        "test -f Makefile && make",
        "test -f Makefile && ctx run -- make",
    ),
    ("pytest;", "ctx run -- pytest;"),
    // Pipelines: only the last stage, only when known.
    // The agent's own truncation: the same lines, kept by ctx run.
    (
        "pytest | tail -n 20",
        "ctx run --keep-tail 20 --keep-streams stdout --exit-zero -- pytest",
    ),
    (
        "cargo test 2>&1 | tail -50",
        "ctx run --keep-tail 50 --exit-zero -- cargo test 2>&1",
    ),
    (
        "FOO=1 pytest -x 2>&1 | tail",
        "FOO=1 ctx run --keep-tail 10 --exit-zero -- pytest -x 2>&1",
    ),
    (
        "pytest |& tail -3",
        "ctx run --keep-tail 3 --exit-zero -- pytest",
    ),
    (
        "set -o pipefail; pytest 2>&1 | tail -5",
        "set -o pipefail; ctx run --keep-tail 5 -- pytest 2>&1",
    ),
    (
        "set -euo pipefail && make test 2>&1 | tail --lines=30 && echo ok",
        "set -euo pipefail && ctx run --keep-tail 30 -- make test 2>&1 && echo ok",
    ),
    (
        "npm test | head -50",
        "ctx run --keep-head 50 --keep-streams stdout --exit-zero -- npm test",
    ),
    (
        "cd app && go test ./... 2>&1 | head -n 100; echo done",
        "cd app && ctx run --keep-head 100 --exit-zero -- go test ./... 2>&1; echo done",
    ),
    ("cargo test 2>&1 | tail -f", "="),
    ("pytest | tail -n +5", "="),
    ("pytest | head -n -5", "="),
    ("pytest | tail -c 100", "="),
    ("pytest 2>&1 | tail -5 | cat", "="),
    ("pytest 2>&1 | tail -5 > out.txt", "="),
    ("pytest | sort | tail -5", "="),
    ("cargo run 2>&1 | tail", "="),
    ("git diff | tail -20", "="),
    ("pytest | tail -5 notes.txt", "="),
    ("pytest 2>&1 | tee log", "="),
    ("cargo test 2>&1 | grep FAILED", "="),
    ("echo y | pytest", "echo y | ctx run -- pytest"),
    (
        "cat list | xargs echo | make",
        "cat list | xargs echo | ctx run -- make",
    ),
    ("pytest |& grep FAILED", "="),
    (
        "cd x && pytest | cat; cargo test",
        "cd x && pytest | cat; ctx run -- cargo test",
    ),
    // Environment assignments and shell prefixes stay in front.
    ("FOO=1 pytest", "FOO=1 ctx run -- pytest"),
    (
        "A=1 B='x y' cargo test",
        "A=1 B='x y' ctx run -- cargo test",
    ),
    (
        "RUST_BACKTRACE=1 cargo test",
        "RUST_BACKTRACE=1 ctx run -- cargo test",
    ),
    ("CI=true npm test", "CI=true ctx run -- npm test"),
    ("time pytest", "time ctx run -- pytest"),
    ("time -p cargo build", "time -p ctx run -- cargo build"),
    ("! pytest", "! ctx run -- pytest"),
    ("FOO=1", "="),
    // Wrappers stay, inside ctx run.
    (
        "docker exec web pytest",
        "ctx run -- docker exec web pytest",
    ),
    (
        "docker exec -e A=1 -w /app web pytest -q",
        "ctx run -- docker exec -e A=1 -w /app web pytest -q",
    ),
    (
        "docker compose exec api pytest",
        "ctx run -- docker compose exec api pytest",
    ),
    (
        "docker compose exec -T api python -m pytest",
        "ctx run -- docker compose exec -T api python -m pytest",
    ),
    (
        "direnv exec . cargo test",
        "ctx run -- direnv exec . cargo test",
    ),
    (
        "nix develop --command cargo build",
        "ctx run -- nix develop --command cargo build",
    ),
    (
        "nix develop .#ci -c make",
        "ctx run -- nix develop .#ci -c make",
    ),
    ("env FOO=1 pytest", "ctx run -- env FOO=1 pytest"),
    ("env -u HOME pytest", "ctx run -- env -u HOME pytest"),
    (
        "timeout 300 cargo test",
        "ctx run -- timeout 300 cargo test",
    ),
    (
        "timeout -k 5 300 pytest",
        "ctx run -- timeout -k 5 300 pytest",
    ),
    ("nice -n 10 make", "ctx run -- nice -n 10 make"),
    ("uv run python script.py", "="),
    ("docker exec web ls", "="),
    ("npx prettier --check .", "="),
    ("timeout 5", "="),
    // Quotes and escapes are kept byte for byte, and follow bash's rules.
    (
        "pytest tests/with\\ space.py",
        "ctx run -- pytest tests/with\\ space.py",
    ),
    ("\"pytest\" -q", "ctx run -- \"pytest\" -q"),
    ("py\\test -q", "ctx run -- py\\test -q"),
    ("\"py\\test\"", "="),
    ("'py\\test'", "="),
    ("pytest \"$HOME/x\"", "ctx run -- pytest \"$HOME/x\""),
    ("pytest \\\n  -x", "ctx run -- pytest \\\n  -x"),
    ("$PYTEST -x", "="),
    ("$'pytest'", "="),
    ("pyt*", "="),
    ("pytest 'unterminated", "="),
    // Redirections: stdout elsewhere stays raw; stderr and stdin are fine.
    ("pytest > out.txt", "="),
    ("pytest >> out.txt", "="),
    ("pytest 1>out.txt", "="),
    ("pytest >out.txt 2>&1", "="),
    ("pytest &> log", "="),
    ("pytest &>> log", "="),
    ("pytest >&2", "="),
    ("pytest >&log", "="),
    ("pytest >| out", "="),
    ("pytest 1<>log", "="),
    ("pytest 1<&0", "="),
    ("exec >log; pytest", "="),
    ("exec 1>log 2>&1\npytest", "="),
    ("exec 2>err; pytest", "exec 2>err; ctx run -- pytest"),
    ("pytest 2>&1", "ctx run -- pytest 2>&1"),
    ("pytest 2>/dev/null", "ctx run -- pytest 2>/dev/null"),
    ("pytest 2> err.log", "ctx run -- pytest 2> err.log"),
    ("pytest < input.txt", "ctx run -- pytest < input.txt"),
    ("pytest <<< y", "ctx run -- pytest <<< y"),
    ("pytest {fd}>log", "ctx run -- pytest {fd}>log"),
    ("echo 2 > f && pytest", "echo 2 > f && ctx run -- pytest"),
    ("> log pytest", "="),
    // Lines bash rejects are left as they are.
    (";npx ; pytest", "="),
    ("&&&&", "="),
    ("| pytest", "="),
    ("pytest >", "="),
    ("pytest 2>", "="),
    ("pytest >> ; cargo test", "="),
    ("pytest > | cat", "="),
    ("pytest && && cargo test", "="),
    ("pytest &&", "="),
    ("pytest |", "="),
    ("pytest ;; cargo test", "="),
    ("cd a;\n;pytest", "="),
    // Unattestable: the whole line is left alone.
    ("x=$(pytest)", "="),
    ("echo `cargo test`", "="),
    ("pytest -k \"$(cat keys)\"", "="),
    ("pytest <<EOF\ny\nEOF", "="),
    ("(cd app && pytest)", "="),
    ("f() { pytest; }; f", "="),
    ("{ pytest; }", "="),
    ("eval pytest", "="),
    ("eval \"$CMD\" && pytest", "="),
    ("for f in a b; do pytest $f; done", "="),
    ("if true; then pytest; fi", "="),
    ("while true; do cargo test; done", "="),
    ("pytest &", "="),
    ("diff <(pytest) <(pytest)", "="),
    ("case $x in a) pytest;; esac", "="),
    ("source ./helpers.sh && pytest", "="),
    ("exec pytest", "="),
    // A builtin or reserved word in command position is bash's own, never
    // a program `ctx run` could exec: the stage stays as written.
    ("command -v pytest", "="),
    ("command pytest -x", "="),
    ("command -p cargo test", "="),
    ("A=1 command cargo test", "="),
    ("time command -v pytest", "="),
    ("! command -v pytest", "="),
    (
        "command -v pytest && pytest",
        "command -v pytest && ctx run -- pytest",
    ),
    ("builtin cd app && pytest", "="),
    ("exec cargo test", "="),
    ("type pytest", "="),
    (
        "type -a cargo && cargo test",
        "type -a cargo && ctx run -- cargo test",
    ),
    ("hash pytest", "="),
    ("hash -r; pytest", "hash -r; ctx run -- pytest"),
    ("eval cargo test", "="),
    (". ./helpers.sh && pytest", "="),
    ("alias t=pytest; t", "="),
    (
        "export CI=1 && npm test",
        "export CI=1 && ctx run -- npm test",
    ),
    ("set -e; pytest", "set -e; ctx run -- pytest"),
    (
        "test -f setup.py && pytest",
        "test -f setup.py && ctx run -- pytest",
    ),
    (
        "[ -d tests ] && pytest",
        "[ -d tests ] && ctx run -- pytest",
    ),
    (
        "ulimit -n 4096 && cargo test",
        "ulimit -n 4096 && ctx run -- cargo test",
    ),
    ("until pytest; do :; done", "="),
    ("select t in a; do pytest; done", "="),
    ("coproc pytest", "="),
    ("function t { pytest; }", "="),
    ("(pytest)", "="),
    (
        "[[ -d tests ]] && pytest",
        "[[ -d tests ]] && ctx run -- pytest",
    ),
    // Programs, installs, publishing: never captured.
    ("cargo run", "="),
    ("cargo run --release -- --port 8080", "="),
    ("cargo install ripgrep", "="),
    ("cargo install --path .", "="),
    ("cargo publish", "="),
    ("cargo publish --dry-run", "="),
    ("cargo fmt", "="),
    ("cargo add serde", "="),
    ("cargo update", "="),
    ("npm start", "="),
    ("npm install", "="),
    ("npm i lodash", "="),
    ("npm publish", "="),
    ("npm run dev", "="),
    ("npm run start", "="),
    ("npm run test:watch", "="),
    ("pnpm install", "="),
    ("pnpm dev", "="),
    ("yarn", "="),
    ("yarn start", "="),
    ("bun run dev", "="),
    ("go run ./cmd/server", "="),
    ("go mod tidy", "="),
    ("make run", "="),
    ("make install", "="),
    ("make deploy", "="),
    ("gcc -E main.c", "="),
    ("cc -o - main.c", "="),
    ("rustc --print sysroot", "="),
    ("rustc main.rs", "="),
    ("pytest --version", "="),
    ("cargo test --help", "="),
    // Interactive or long-running.
    ("pytest --pdb", "="),
    ("python -m pytest --trace", "="),
    ("docker exec -it web pytest", "="),
    ("docker exec -t web pytest", "="),
    ("jest --watch", "="),
    ("jest --watchAll", "="),
    ("vitest --watch", "="),
    ("cargo watch -x test", "="),
    ("make serve", "="),
    ("tsc --watch", "="),
    ("make dev", "="),
    ("python", "="),
    ("tail -f log", "="),
    // Diffs and searches: typed families keep every file.
    ("git diff", "ctx run -- git diff"),
    ("git diff HEAD~1", "ctx run -- git diff HEAD~1"),
    ("git diff --cached", "ctx run -- git diff --cached"),
    (
        "git -C repo diff main...HEAD",
        "ctx run -- git -C repo diff main...HEAD",
    ),
    (
        "git --no-pager show HEAD",
        "ctx run -- git --no-pager show HEAD",
    ),
    (
        "git show --stat -p HEAD",
        "ctx run -- git show --stat -p HEAD",
    ),
    ("git log -p -3", "ctx run -- git log -p -3"),
    ("git log --patch src/", "ctx run -- git log --patch src/"),
    ("timeout 30 git diff", "ctx run -- timeout 30 git diff"),
    (
        "git diff && cargo test",
        "ctx run -- git diff && ctx run -- cargo test",
    ),
    ("git log --oneline", "="),
    ("git log -5", "="),
    ("git diff --stat", "="),
    ("git diff --name-only HEAD~3", "="),
    ("git show --no-patch HEAD", "="),
    ("git show HEAD:src/main.rs", "="),
    ("git show v1.0:Cargo.toml", "="),
    ("git diff -z --name-status", "="),
    ("git diff --output=x.patch", "="),
    ("git diff > x.patch", "="),
    ("git diff | git apply", "="),
    ("git log -p | head", "="),
    ("git commit -m x", "="),
    ("git grep -n TODO", "ctx run -- git grep -n TODO"),
    ("git grep -z TODO", "="),
    (
        "grep -rn 'fn main' src",
        "ctx run -- grep -rn 'fn main' src",
    ),
    ("grep -rl foo .", "ctx run -- grep -rl foo ."),
    ("grep -n foo a.rs b.rs", "ctx run -- grep -n foo a.rs b.rs"),
    ("grep -c foo a.rs b.rs", "ctx run -- grep -c foo a.rs b.rs"),
    // A glob may expand to one file, whose lines name none.
    ("grep -n foo *.rs", "="),
    ("egrep -r 'a|b' src", "ctx run -- egrep -r 'a|b' src"),
    ("rg foo", "ctx run -- rg foo"),
    (
        "rg -n --heading foo src",
        "ctx run -- rg -n --heading foo src",
    ),
    ("rg --json foo", "ctx run -- rg --json foo"),
    ("grep foo file.txt", "="),
    ("grep -rh foo .", "="),
    ("grep -rZ foo .", "="),
    ("cat log | grep ERROR", "="),
    ("ps aux | grep node", "="),
    ("cat x | rg foo", "="),
    ("rg foo -", "="),
    ("rg --files", "="),
    ("rg --type-list", "="),
    ("grep -rn foo . > hits.txt", "="),
    // Commands only a declarative filter serves, when its `[match]
    // rewrite` names them: builds, plans, pushes that end by themselves.
    ("cmake --build build", "ctx run -- cmake --build build"),
    ("cmake -S . -B build", "ctx run -- cmake -S . -B build"),
    ("cmake -P script.cmake", "="),
    ("terraform plan", "ctx run -- terraform plan"),
    (
        "timeout 600 terraform plan -input=false",
        "ctx run -- timeout 600 terraform plan -input=false",
    ),
    ("terraform apply", "="),
    ("docker build -t app .", "ctx run -- docker build -t app ."),
    ("docker compose build", "ctx run -- docker compose build"),
    ("docker compose up", "="),
    ("docker run -it app", "="),
    (
        "kubectl apply -f deploy.yaml",
        "ctx run -- kubectl apply -f deploy.yaml",
    ),
    ("kubectl rollout undo deployment/app", "="),
    (
        "pre-commit run --all-files",
        "ctx run -- pre-commit run --all-files",
    ),
    ("curl -v https://example.org", "="),
    ("docker build -t app . > build.log", "="),
    ("cmake --build $DIR", "="),
    // Already under ctx, or ctx turned off.
    ("ctx run -- pytest", "="),
    ("ctx run -- cargo test && ctx run -- npm test", "="),
    ("ctx expand abc123", "="),
    ("pytest | ctx pipe", "="),
    ("CTX_DISABLE=1 pytest", "="),
    // Everyday commands that are not builds or tests.
    ("ls -la", "="),
    ("echo pytest", "="),
    ("python script.py", "="),
    ("git status", "="),
    ("cat Cargo.toml", "="),
    ("", "="),
    ("   ", "="),
    // Comments.
    (
        "pytest # run the tests",
        "ctx run -- pytest # run the tests",
    ),
    ("# pytest", "="),
];

fn expected(want: &str) -> Option<String> {
    (want != "=").then(|| want.to_string())
}

#[test]
fn table() {
    assert!(TABLE.len() >= 150, "{} lines", TABLE.len());
    let mut seen = HashSet::new();
    let mut wrong = Vec::new();
    for (line, want) in TABLE {
        assert!(seen.insert(*line), "{line:?} twice in the table");
        let got = rewrite(line);
        if got != expected(want) {
            wrong.push(format!("{line:?}: got {got:?}, want {want:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// `bash -n`: does bash parse this line?
fn bash_parses(line: &str) -> bool {
    Command::new("bash")
        .args(["--norc", "--noprofile", "-n", "-c", "--", line])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("bash")
        .success()
}

#[test]
fn lines_bash_rejects_are_never_rewritten_and_rewrites_still_parse() {
    let mut rejected = 0;
    for (line, want) in TABLE {
        if bash_parses(line) {
            if let Some(rewritten) = rewrite(line) {
                assert!(bash_parses(&rewritten), "{rewritten:?} does not parse");
            }
        } else {
            rejected += 1;
            assert_eq!(*want, "=", "bash rejects {line:?}");
            assert_eq!(rewrite(line), None, "bash rejects {line:?}");
            assert!(lexer::lex(line).is_err(), "bash rejects {line:?}");
        }
    }
    assert!(
        rejected >= 12,
        "only {rejected} rejected lines in the table"
    );
}

/// Random lines from shell tokens: whatever bash rejects, ctx leaves
/// alone; whatever ctx rewrites, bash still parses.
#[test]
fn random_lines_agree_with_bash() {
    const TOKENS: &[&str] = &[
        "pytest", "cargo", "test", "npm", "make", "-x", ";", "&&", "||", "|", "|&", ">", ">>",
        "2>&1", "<", "1<>", "&>", ">&", "log", "'a b'", "\"x\\y\"", "\\", "\n", "#", "!", "time",
        "A=1", "exec", "[[", "]]", "\"", "'", "$x", "${y}", "<<<", "2>", "cd", "sub", ";;",
    ];
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut checked = 0;
    let mut wrong = Vec::new();
    let rounds = std::env::var("CTX_FUZZ_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(400);
    for _ in 0..rounds {
        let len = 1 + next() % 7;
        let mut line = String::new();
        for _ in 0..len {
            line.push_str(TOKENS[(next() % TOKENS.len() as u64) as usize]);
            if next() % 4 != 0 {
                line.push(' ');
            }
        }
        let got = rewrite(&line);
        if got.is_none() && lexer::lex(&line).is_err() {
            continue; // left alone; nothing to hold against bash
        }
        checked += 1;
        if !bash_parses(&line) {
            wrong.push(format!("ctx lexed {line:?}, which bash rejects"));
        } else if let Some(rewritten) = got
            && !bash_parses(&rewritten)
        {
            wrong.push(format!("{line:?} → {rewritten:?} does not parse"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(checked >= 50, "only {checked} lines lexed");
}

/// The words bash runs itself, as this machine's bash names them.
fn bash_words(script: &str, args: &[&str]) -> Vec<String> {
    let out = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", script, "bash"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("bash");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect()
}

/// ctx's list of builtins and reserved words is bash's: each is what
/// `type -t` calls a builtin or a keyword, every one bash lists is in it,
/// and none of them in command position is put into `ctx run`'s argv.
#[test]
fn builtins_and_keywords_are_bashs_and_never_wrapped() {
    use ctx::rewrite::builtins::{BUILTINS, KEYWORDS};
    for (list, kind) in [(BUILTINS, "builtin"), (KEYWORDS, "keyword")] {
        let types = bash_words(
            r#"for w in "$@"; do printf '%s\n' "$(type -t -- "$w")"; done"#,
            list,
        );
        assert_eq!(types.len(), list.len());
        for (word, got) in list.iter().zip(&types) {
            assert_eq!(got, kind, "bash's `type -t {word}`");
        }
    }
    for word in bash_words("compgen -b; compgen -k", &[]) {
        assert!(is_shell_own(&word), "bash's {word:?} is not in ctx's list");
    }
    for word in BUILTINS.iter().chain(KEYWORDS) {
        for line in [format!("{word} pytest"), format!("A=1 {word} cargo test")] {
            let got = rewrite(&line);
            // `time` and `!` apply to the pipeline and stay in front of
            // `ctx run` (`time ctx run -- pytest`); nothing else passes.
            let prefix = matches!(*word, "time" | "!") && !line.starts_with("A=1");
            if prefix {
                assert_eq!(got, Some(line.replacen(' ', " ctx run -- ", 1)));
            } else {
                assert_eq!(got, None, "{line:?}");
            }
        }
    }
}

/// bash's own path: the probe runs it with an empty PATH.
fn bash_path() -> std::path::PathBuf {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join("bash"))
        .find(|p| p.is_file())
        .expect("bash on PATH")
}

/// Runs `line` under bash with an empty PATH, so that every external
/// command goes to `command_not_found_handle`, which records its argv;
/// `cd` and `source` do nothing. Returns each recorded argv.
fn bash_argvs(line: &str, dir: &Path) -> Vec<Vec<String>> {
    let probe = dir.join("probe");
    let work = dir.join("work");
    let empty = dir.join("empty");
    let _ = fs::remove_file(&probe);
    fs::create_dir_all(&work).expect("work dir");
    fs::create_dir_all(&empty).expect("empty dir");
    let script = format!(
        "command_not_found_handle() {{ printf '%s\\0' \"$#\" \"$@\" >> \"$PROBE\"; return 0; }}\n\
         cd() {{ :; }}\nsource() {{ :; }}\n{line}\n"
    );
    let script_file = dir.join("script.sh");
    fs::write(&script_file, script).expect("script");
    let _ = Command::new(bash_path())
        .args(["--norc", "--noprofile"])
        .arg(&script_file)
        .current_dir(&work)
        .env_clear()
        .env("PATH", &empty)
        .env("PROBE", &probe)
        .env("HOME", &work)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("bash");
    let bytes = fs::read(&probe).unwrap_or_default();
    let mut fields = bytes
        .split(|b| *b == 0)
        .map(|f| String::from_utf8_lossy(f).into_owned());
    let mut argvs = Vec::new();
    while let Some(count) = fields.next() {
        let Ok(n) = count.parse::<usize>() else {
            break;
        };
        argvs.push(fields.by_ref().take(n).collect());
    }
    argvs
}

#[test]
fn the_words_ctx_sees_are_the_argv_bash_builds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut compared = 0;
    for (line, _) in TABLE {
        let Ok(pipelines) = lexer::lex(line) else {
            continue;
        };
        if rewrite(line).is_none() && !bash_parses(line) {
            continue;
        }
        let opaque = [
            "(",
            "`",
            "<<",
            "eval",
            "for ",
            "if ",
            "while ",
            "until ",
            "select ",
            "coproc ",
            "function ",
            "{ ",
        ];
        if opaque.iter().any(|o| line.contains(o)) {
            continue;
        }
        let recorded = bash_argvs(line, dir.path());
        // The literal words ctx sees, per stage, up to the first word bash
        // would expand.
        let stages: Vec<(Vec<String>, bool)> = pipelines
            .iter()
            .flat_map(|p| p.iter())
            .map(|s| {
                let mut words = command_words(s);
                // `command [-p] pytest` runs pytest: bash's builtin, which
                // ctx leaves as written, is not part of the argv.
                if words.first().is_some_and(|w| w.value == "command") {
                    let options = words[1..]
                        .iter()
                        .take_while(|w| w.value.starts_with('-'))
                        .count();
                    words = &words[1 + options..];
                }
                let complete = words.iter().all(|w| w.literal);
                let prefix = words
                    .iter()
                    .take_while(|w| w.literal)
                    .map(|w| w.value.clone())
                    .collect();
                (prefix, complete)
            })
            .collect();
        for argv in &recorded {
            let matched = stages.iter().any(|(prefix, complete)| {
                argv.len() >= prefix.len()
                    && argv[..prefix.len()] == prefix[..]
                    && (!complete || argv.len() == prefix.len())
            });
            assert!(matched, "{line:?}: bash ran {argv:?}; ctx saw {:?}", stages);
        }
        // The first pipeline always runs: each of its external commands
        // must have been seen by bash as ctx sees it.
        if let Some(first) = pipelines.first() {
            for stage in first {
                let words = command_words(stage);
                let Some(name) = words.first() else {
                    continue;
                };
                let input_redirected = stage.redirected && !stage.stdout_redirected;
                if !name.literal
                    || name.value.contains('/')
                    // Builtins and keywords (the probe's `cd` and `source`
                    // among them) are run without a PATH look-up.
                    || is_shell_own(&name.value)
                    || input_redirected
                    || words.iter().any(|w| !w.literal)
                {
                    continue;
                }
                let want: Vec<String> = words.iter().map(|w| w.value.clone()).collect();
                assert!(
                    recorded.contains(&want),
                    "{line:?}: ctx saw {want:?}; bash ran {recorded:?}"
                );
                compared += 1;
            }
        }
    }
    assert!(compared >= 100, "only {compared} commands compared");
}

fn ctx_rewrite(line: &str) -> (String, Option<i32>) {
    let out = Command::new(env!("CARGO_BIN_EXE_ctx"))
        .args(["rewrite", line])
        .output()
        .expect("ctx rewrite");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code(),
    )
}

#[test]
fn cli_prints_the_rewrite_and_exits_0() {
    let (out, code) = ctx_rewrite("cd app && FOO=1 pytest -q | cat; cargo test");
    assert_eq!(
        out,
        "cd app && FOO=1 pytest -q | cat; ctx run -- cargo test\n"
    );
    assert_eq!(code, Some(0));
}

#[test]
fn cli_prints_the_original_and_exits_1() {
    for line in ["ls -la", "x=$(pytest)", "pytest | tee log", "cargo run"] {
        let (out, code) = ctx_rewrite(line);
        assert_eq!(out, format!("{line}\n"));
        assert_eq!(code, Some(1));
    }
}
