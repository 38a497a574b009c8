#!/bin/sh
# SPDX-License-Identifier: MIT
#
# update-uplot.sh [VERSION]: vendors uPlot (MIT) from the npm registry into
# third_party/uplot/: the minified IIFE build, its CSS and its licence, with
# VERSION (the version, the tarball and npm's sha512 integrity of it) and
# SHA256SUMS of the three files. Needs npm and the registry; the build needs
# neither (it embeds the vendored files, and checks them against SHA256SUMS).
#
#   scripts/update-uplot.sh           the latest version
#   scripts/update-uplot.sh 1.6.32    a given one
#
# Review the diff (the licence above all) before committing.
set -eu
cd "$(dirname "$0")/.."
v=${1:-$(npm view uplot version)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "uplot@$v" >/dev/null)
tgz=$tmp/uplot-$v.tgz
want=$(npm view "uplot@$v" dist.integrity)
got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
[ "$want" = "$got" ] || { echo "update-uplot: integrity mismatch: $got, npm says $want" >&2; exit 1; }
tar -xzf "$tgz" -C "$tmp"
d=third_party/uplot
cp "$tmp/package/dist/uPlot.iife.min.js" "$tmp/package/dist/uPlot.min.css" "$tmp/package/LICENSE" "$d/"
cat >"$d/VERSION" <<EOF
# uPlot, vendored from the npm registry (scripts/update-uplot.sh).
name=uplot
version=$v
license=$(npm view "uplot@$v" license)
tarball=$(npm view "uplot@$v" dist.tarball)
tarball_sha512=${want#sha512-}
EOF
(cd "$d" && sha256sum uPlot.iife.min.js uPlot.min.css LICENSE >SHA256SUMS)
echo "update-uplot: uPlot $v in $d"
