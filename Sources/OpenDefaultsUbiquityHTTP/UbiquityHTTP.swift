#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AsyncHTTPClient
import NIOCore
import NIOFoundationCompat
import NIOSSL
import OpenDefaultsUbiquity
import NIOHTTP1

/// Connects ``UbiquitousKeyValueStore/default`` (and stores made with
/// ``UbiquitousKeyValueStore/init(storeIdentifier:)``) to the server of `ubiquity login`.
public enum UbiquityHTTP {
    /// Makes HTTP the default transport; call once at launch, before using a store.
    ///
    /// ```swift
    /// UbiquityHTTP.install()
    /// ```
    public static func install() {
        UbiquitousKeyValueStore.defaultTransport = { account in HTTPUbiquityTransport(account: account) }
    }
}
