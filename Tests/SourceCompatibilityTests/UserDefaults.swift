// Code written for Apple's `UserDefaults` compiles unchanged against
// OpenDefaults with this one line. This target is built with warnings as
// errors: a cast that could never succeed (as `value(forKey:) as? String`
// would be if `value(forKey:)` returned the typed value) fails the build.
import OpenDefaults

typealias UserDefaults = Defaults
