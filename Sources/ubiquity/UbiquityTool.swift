import ArgumentParser
import CommandLineSupport
import PlatformIO

/// `ubiquity`: the iCloud key-value store's sync server and its client on the command line.
@main
struct UbiquityTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ubiquity",
        abstract: "Key-value stores that follow the user across machines: the sync server and its client.",
        discussion: """
            Two machines syncing on one computer:
              ubiquity account add me --create | tail -n 1 > token
              ubiquity serve --port 8470 &
              ubiquity login http://127.0.0.1:8470 < token
              ubiquity set --store com.example.notes theme dark
              HOME=/tmp/b ubiquity login http://127.0.0.1:8470 < token
              HOME=/tmp/b ubiquity get --store com.example.notes theme
            """,
        version: "ubiquity (OpenDefaults) \(OpenDefaultsVersion.string)",
        subcommands: [Serve.self, Account.self, Check.self, Backup.self, Restore.self, Login.self, Logout.self,
                      Get.self, SetCommand.self, Remove.self, ListCommand.self, Watch.self, Sync.self,
                      Org.self, Policy.self, Enroll.self, Agent.self]
    )

    /// A mistyped command is named with the one meant (``CommandWords``).
    static func main() async { await mainCheckingCommands() }
}
