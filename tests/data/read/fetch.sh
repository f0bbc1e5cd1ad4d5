#!/usr/bin/env bash
# Regenerates the real source files the outline snapshots read
# (tests/read_languages.rs), each from a published package, unchanged.
# Needs: cargo (the crates below are in Cargo.lock's tree, so `cargo
# fetch` puts them in the registry), npm, pip, apt-get download, dpkg-deb.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$here/../../.." && cargo fetch --locked >/dev/null
reg=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/ | head -1)

put() { # put LANG FILE-NAME SOURCE
  mkdir -p "$here/$1" && cp "$3" "$here/$1/$2"
}

# crates.io
put rust inline.rs "$reg/similar-2.7.0/src/text/inline.rs"
put toml Cargo.toml "$reg/similar-2.7.0/Cargo.toml.orig"
put markdown README.md "$reg/similar-2.7.0/README.md"
put c tree.c "$reg/tree-sitter-0.27.1/src/tree.c"
put bash vendor-wit.sh "$reg/wasi-0.14.7+wasi-0.2.4/ci/vendor-wit.sh"
put yaml gitlab-ci.yml "$reg/vcpkg-0.2.15/.gitlab-ci.yml"

cd "$work"
# npm
npm pack --silent react-hot-toast@2.4.1 ms@2.1.3 normalize.css@8.0.1 react-native-fs@2.20.0 bcrypt@5.1.1 >/dev/null
for t in *.tgz; do mkdir -p "${t%.tgz}" && tar xzf "$t" -C "${t%.tgz}"; done
put typescript store.ts react-hot-toast-2.4.1/package/src/core/store.ts
put tsx toaster.tsx react-hot-toast-2.4.1/package/src/components/toaster.tsx
put javascript index.js ms-2.1.3/package/index.js
put json package.json ms-2.1.3/package/package.json
put css normalize.css normalize.css-8.0.1/package/normalize.css
put java Downloader.java react-native-fs-2.20.0/package/android/src/main/java/com/rnfs/Downloader.java
put csharp RNFSPackage.cs react-native-fs-2.20.0/package/windows/RNFS/RNFSPackage.cs
put cpp bcrypt_node.cc bcrypt-5.1.1/package/src/bcrypt_node.cc

# PyPI
pip download --quiet --no-deps packaging==24.2 -d py
(mkdir -p packaging && cd packaging && python3 -m zipfile -e ../py/packaging-24.2-py3-none-any.whl .)
put python utils.py packaging/packaging/utils.py

# Debian
apt-get download -q golang-github-pkg-errors-dev=0.9.1-2 ruby-rainbow=3.1.1-1 php-psr-log=1.1.4-2 base-passwd >/dev/null
for d in *.deb; do mkdir -p "deb/${d%%_*}" && dpkg-deb -x "$d" "deb/${d%%_*}"; done
put go stack.go deb/golang-github-pkg-errors-dev/usr/share/gocode/src/github.com/pkg/errors/stack.go
put ruby presenter.rb deb/ruby-rainbow/usr/share/rubygems-integration/all/gems/rainbow-3.1.1/lib/rainbow/presenter.rb
put php AbstractLogger.php deb/php-psr-log/usr/share/php/Psr/Log/AbstractLogger.php
put html users-and-groups.html deb/base-passwd/usr/share/doc/base-passwd/users-and-groups.html
echo "regenerated under $here"
