# Sourced by bench scripts (run from the repository's root): the static
# release binary, built first, as README's first command builds it. A
# script uses it unless told of another build: RETIME=${RETIME:-$(release_retime)}.
release_retime() {
  swift build -c release --static-swift-stdlib --product retime >/dev/null
  echo "$PWD/.build/release/retime"
}
