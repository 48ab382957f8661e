/// The text `defaults help` prints (macOS's, with OpenDefaults' additions at the end).
let helpText = """
    Command line interface to a user's defaults.
    Syntax:

    'defaults' [-currentHost | -host <hostname>] followed by one of the following:

      read                                 shows all defaults
      read <domain>                        shows defaults for given domain
      read <domain> <key>                  shows defaults for given domain, key

      read-type <domain> <key>             shows the type for the given domain, key

      write <domain> <domain_rep>          writes domain (overwrites existing)
      write <domain> <key> <value>         writes key for domain

      rename <domain> <old_key> <new_key>  renames old_key to new_key

      delete <domain>                      deletes domain
      delete <domain> <key>                deletes key in domain

      import <domain> <path to plist>      writes the plist at path to domain
      import <domain> -                    writes a plist from stdin to domain
      export <domain> <path to plist>      saves domain as a binary plist to path
      export <domain> -                    writes domain as an xml plist to stdout
      domains                              lists all domains
      find <word>                          lists all entries containing word
      help                                 print this help

    <domain> is ( <domain_name> | -app <application_name> | -globalDomain )
             or a path to a file omitting the '.plist' extension

    <value> is one of:
      <value_rep>
      -string <string_value>
      -data <hex_digits>
      -int[eger] <integer_value>
      -float  <floating-point_value>
      -bool[ean] (true | false | yes | no)
      -date <date_rep>
      -array <value1> <value2> ...
      -array-add <value1> <value2> ...
      -dict <key1> <value1> <key2> <value2> ...
      -dict-add <key1> <value1> ...

    """

/// OpenDefaults' additions, printed by `defaults help --extensions`.
let extensionsHelpText = """
    OpenDefaults additions (the default output stays as on macOS):

      Options, before the verb:
        --format=xml | json | plain     read, find: print an XML plist, JSON, or the macOS form (plain)
        --full-data                     read, find: print every byte of data values
        --utf8                          read, find: print non-ASCII text as UTF-8 instead of escapes
        --key-path                      read, read-type, write, delete: the key is a path into nested
                                        values, components separated by '.', '\\' escaping the next
                                        character (a.b.2 is key b of dictionary a, element 2)

      Value flags for write:
        -array-add-unique <value> ...   append each value not already in the array
        -array-remove <value> ...       remove every element equal to a value

      Verbs:
        watch <domain> [<key>]          print each change, by any process, until interrupted
        completion bash | zsh | fish    print a shell completion script
        help --extensions               print this text

    """

/// Help for a verb macOS `defaults` does not have (`defaults watch --help`); the
/// others print the whole help, as their options are macOS's.
let verbHelpTexts: [String: String] = [
    "watch": """
        usage: defaults watch <domain> [<key>]

        Prints each change to <domain> (or to its <key>), made by any process, as it
        happens, until interrupted (Ctrl-C). Each line is the changed key and its new
        value, or that it was removed. <domain> is a name such as com.example.app,
        -g for the global domain, or -app Name.

        """,
    "completion": """
        usage: defaults completion bash | zsh | fish

        Prints a completion script for the shell; domains and keys complete from
        what is on this machine. For bash:  source <(defaults completion bash)

        """,
]
