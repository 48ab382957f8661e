/// Which payload types carry preferences.
///
/// `com.apple.ManagedClient.preferences` carries them in MCX form (Forced,
/// Set-Once, Often by domain); the types below configure something else
/// (networks, certificates, restrictions, privacy, extensions, accounts) and
/// are listed as not applicable; every other type names a preference domain
/// whose settings sit beside the `Payload…` keys, all forced.
enum PayloadKinds {
    static let managedClient = "com.apple.ManagedClient.preferences"
    /// iOS's `DefaultsDomainName` / `DefaultsData` payload: forced values for one domain.
    static let defaultsManaged = "com.apple.defaults.managed"

    static let notPreferences: Set<String> = [
        // Restrictions, privacy, extensions, background items
        "com.apple.applicationaccess", "com.apple.applicationaccess.new", "com.apple.TCC.configuration-profile-policy",
        "com.apple.system-extension-policy", "com.apple.syspolicy.kernel-extension-policy", "com.apple.servicemanagement",
        "com.apple.loginitems.managed", "com.apple.notificationsettings", "com.apple.webcontent-filter",
        "com.apple.system.logging", "com.apple.security.firewall", "com.apple.MCX.FileVault2",
        "com.apple.security.FDERecoveryKeyEscrow", "com.apple.security.FDERecoveryRedirect",
        // Networks
        "com.apple.wifi.managed", "com.apple.vpn.managed", "com.apple.vpn.managed.applayer", "com.apple.dnsSettings.managed",
        "com.apple.dnsProxy.managed", "com.apple.proxy.http.global", "com.apple.firstactiveethernet.managed",
        "com.apple.globalethernet.managed", "com.apple.firstethernet.managed", "com.apple.secondactiveethernet.managed",
        "com.apple.relay.managed",
        // Certificates and identities
        "com.apple.security.pkcs1", "com.apple.security.pkcs12", "com.apple.security.root", "com.apple.security.pem",
        "com.apple.security.scep", "com.apple.security.acme", "com.apple.security.certificatetransparency",
        "com.apple.security.certificaterevocation",
        // Sign-on and accounts
        "com.apple.extensiblesso", "com.apple.sso", "com.apple.mail.managed", "com.apple.ldap.account", "com.apple.carddav.account",
        "com.apple.caldav.account", "com.apple.eas.account", "com.apple.google-oauth", "com.apple.jabber.account",
        "com.apple.subscribedcalendar.account", "com.apple.DirectoryService.managed",
        // Devices and management
        "com.apple.mdm", "com.apple.airplay", "com.apple.airprint", "com.apple.font", "com.apple.webClip.managed",
        "com.apple.configurationprofile.identification",
    ]

    /// Every payload type this reader knows by name (for "did you mean …?").
    static let known: [String] = [managedClient, defaultsManaged] + notPreferences.sorted()
}
