import ArgumentParser
import OpenDefaults
import OpenDefaultsUbiquity
import PlatformIO
import PropertyList
import Foundation

struct Logout: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "logout", abstract: "Log this user out (local copies stay, per account).")

    func run() throws {
        do { try UbiquityAccount.remove() } catch { throw fail("\(error)") }
    }
}
