# bash completion for binschema. Installed as
# share/bash-completion/completions/binschema; or: source binschema.bash
_binschema() {
  local cur prev cmd opts
  cur="${COMP_WORDS[COMP_CWORD]}"
  prev="${COMP_WORDS[COMP_CWORD-1]}"
  local commands="formats decode encode info list explain coverage view unpack pack diff merge verify hash check help"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
    return
  fi
  cmd="${COMP_WORDS[1]}"
  case "$prev" in
    --as)
      # The format names of this very program (downstream builds add their own).
      COMPREPLY=($(compgen -W "$(command "${COMP_WORDS[0]}" formats 2>/dev/null | cut -f1)" -- "$cur"))
      return ;;
    --format)
      case "$cmd" in
        explain|coverage|diff|verify) COMPREPLY=($(compgen -W "text json" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -W "yaml json" -- "$cur")) ;;
      esac
      return ;;
    -o|--output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --out-dir|--romfs) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    --zsdic|--names|--schema) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    -j|--jobs) COMPREPLY=($(compgen -W "1 2 4 8 16" -- "$cur")); return ;;
  esac
  case "$cmd" in
    decode) opts="--schema -o --output --format --names --numbers --out-dir -j --jobs --no-clobber --as --force --zsdic --romfs --help" ;;
    encode) opts="--schema -o --output --out-dir -j --jobs --no-clobber --as --force --zsdic --romfs --help" ;;
    info) opts="--schema --as --zsdic --romfs --help" ;;
    list) opts="--schema --zsdic --romfs --help" ;;
    explain|coverage) opts="--schema --format --as --zsdic --romfs --help" ;;
    view) opts="--schema -o --output --as --force --zsdic --romfs --help" ;;
    unpack) opts="--force --zsdic --romfs --help" ;;
    pack) opts="-o --output --zsdic --romfs --help" ;;
    diff) opts="--format --zsdic --romfs --help" ;;
    merge) opts="-o --output --force --zsdic --romfs --help" ;;
    verify) opts="--schema --format -j --jobs --all --zsdic --romfs --help" ;;
    formats) opts="--schema --help" ;;
    check) opts="--help" ;;
    hash)
      [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W "fnv1a32 murmur3" -- "$cur"))
      return ;;
    help)
      [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W "$commands" -- "$cur"))
      return ;;
    *) return ;;
  esac
  case "$cur" in
    -*) COMPREPLY=($(compgen -W "$opts" -- "$cur")) ;;
    *) COMPREPLY=($(compgen -f -- "$cur")) ;;
  esac
}
complete -o filenames -F _binschema binschema
