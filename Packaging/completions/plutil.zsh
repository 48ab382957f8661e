#compdef plutil
# zsh completion for plutil (OpenDefaults)
_plutil() {
    local -a commands formats
    commands=(-help -lint -convert -insert -replace -remove -extract -type -create -p -s -o -e -r -n -append -expect --version)
    formats=(xml1 binary1 json openstep)
    case $words[CURRENT-1] in
        -convert|-create) compadd -- $formats; return ;;
        -expect) compadd -- bool integer float string date data array dictionary; return ;;
    esac
    if [[ $PREFIX == -* ]]; then compadd -- $commands; else _files; fi
}
_plutil "$@"
