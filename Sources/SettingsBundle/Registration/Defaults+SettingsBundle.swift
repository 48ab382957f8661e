@_spi(Engine) public import OpenDefaults

extension Defaults {
    /// Registers every `DefaultValue` of every pane of `bundle`, so that the
    /// app reads them before the user ever opens its settings.
    ///
    /// ```swift
    /// let bundle = try SettingsBundle(path: "Settings.bundle")
    /// Defaults.standard.register(settingsBundle: bundle)
    /// Defaults.standard.string(forKey: "protocol")  // "SMTP"
    /// ```
    public func register(settingsBundle bundle: SettingsBundle) {
        register(bundle.defaultValues)
    }

    /// Reads the bundle at `path` and registers its defaults.
    ///
    /// - Returns: the bundle, for its ``SettingsBundle/problems``.
    /// - Throws: ``SettingsBundleError`` when the bundle cannot be read at all.
    @discardableResult
    public func register(settingsBundleAt path: String) throws(SettingsBundleError) -> SettingsBundle {
        let bundle = try SettingsBundle(path: path)
        register(settingsBundle: bundle)
        return bundle
    }
}
