/// The text `plutil -help` prints.
let helpText = """
    plutil: [command_option] [other_options] file...
    The file '-' means standard input.
    Command options (-lint is the default):
     -help                         show this message and exit
     -lint                         check the property list files for syntax errors
     -convert fmt                  rewrite the property list files in format fmt:
                                   xml1, binary1, json or openstep
     -insert keypath -type value   insert a value into the property list before writing it out;
                                   keypath components are separated by '.', '\\' escapes the next
                                   character; a number applied to an array is an index, and a
                                   final index inserts there; add -append to append to the array
                                   at keypath (value omitted for -array and -dictionary)
                                   type is one of: bool, integer, float, string, date, data,
                                   xml, json, array, dictionary
     -replace keypath -type value  as -insert, but replaces an existing value
     -remove keypath               remove the value at keypath
     -extract keypath fmt          print the value at keypath as a property list in format fmt:
                                   xml1, binary1, json, openstep or raw;
                                   -expect type fails unless the value has that type
     -type keypath                 print the type of the value at keypath (-expect type as above)
     -create fmt                   create an empty property list (a dictionary) in format fmt
     -p                            print the property lists in a human-readable form
                                   (for people, not for parsing: the form may change)
    Other options:
     -s                            print nothing on success
     -o path                       write the result to path ('-' is standard output);
                                   only useful with one file
     -e extension                  write converted files with this extension instead
     -r                            for JSON, indent the output
     -n                            with -extract raw, print no newline after the value
     --                            all further arguments are files
    Exit status: 0 on success, 1 when any file fails.
    """
