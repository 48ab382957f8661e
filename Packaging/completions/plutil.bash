# bash completion for plutil (OpenDefaults)
_plutil() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    case $prev in
        -convert|-create) COMPREPLY=($(compgen -W "xml1 binary1 json openstep" -- "$cur")); return ;;
        -o|-e) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        -expect) COMPREPLY=($(compgen -W "bool integer float string date data array dictionary" -- "$cur")); return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "-help -lint -convert -insert -replace -remove -extract -type -create -p -s -o -e -r -n -append -expect -bool -integer -float -string -date -data -xml -json -array -dictionary --version" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -F _plutil -o filenames plutil
