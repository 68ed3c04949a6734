# Sourced by tests/mcp/node.sh and tests/mcp/auth/node.sh: installs a
# folder's pinned npm packages, once.
#
#   . tests/mcp/npm-ci.sh
#   npm_ci_locked SRC DIR NODE
#
# copies SRC/package.json and SRC/package-lock.json into DIR and installs
# them there with `npm ci --ignore-scripts` (none of the pinned packages
# needs an install script), npm running on the Node at NODE. A stamp in DIR
# holding the two files' checksum and NODE's version skips that until either
# changes. Messages go to stderr.

npm_ci_locked() {
  local src="$1" dir="$2" node="$3"
  local node_version sum stamp want
  node_version="$("$node" --version)"
  sum="$(cat "$src/package.json" "$src/package-lock.json" | sha256sum | cut -d' ' -f1)"
  stamp="$dir/.installed-packages"
  want="$sum node-$node_version"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -d "$dir/node_modules" ]; then
    return 0
  fi
  printf '== installing %s/package-lock.json into %s/node_modules (Node %s)\n' \
    "$src" "$dir" "$node_version" >&2
  cp "$src/package.json" "$src/package-lock.json" "$dir/"
  rm -f "$stamp"
  (cd "$dir" && PATH="$(dirname "$node"):$PATH" \
    npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
  printf '%s\n' "$want" >"$stamp"
}
