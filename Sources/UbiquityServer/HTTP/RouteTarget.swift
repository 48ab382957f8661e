/// Which of the protocol's resources a path names, whatever the method: the one reading of a
/// path that a request's route label (``UbiquityHTTPServer/routeLabel(_:_:)``) and its admission
/// (``UbiquityService/admit(_:)``, which adds the method) share.
///
/// ```swift
/// RouteTarget(PathParts("/v1/stores/com.example.app/commit"))   // .store(.commit)
/// RouteTarget(PathParts("/v1/nothing"))                        // .unknown
/// ```
enum RouteTarget: Equatable {
    case healthz, readyz
    /// `/v1/health`, `/v1/account`, `/v1/events` (the streams of several stores), `/v1/fleet/enroll`.
    case health, account, events, fleetEnroll
    /// `/v1/stores/<name>/<action>`: the name is the path's part 3 (maybe empty).
    case store(StoreAction)
    case unknown

    enum StoreAction: Equatable { case commit, changes, events }

    init(_ parts: PathParts) {
        let v1 = parts.part(1, is: "v1")
        switch parts.count {
        case 2 where parts.part(1, is: "healthz"): self = .healthz
        case 2 where parts.part(1, is: "readyz"): self = .readyz
        case 3 where v1 && parts.part(2, is: "health"): self = .health
        case 3 where v1 && parts.part(2, is: "account"): self = .account
        case 3 where v1 && parts.part(2, is: "events"): self = .events
        case 4 where v1 && parts.part(2, is: "fleet") && parts.part(3, is: "enroll"): self = .fleetEnroll
        case 5 where v1 && parts.part(2, is: "stores") && parts.part(4, is: "commit"): self = .store(.commit)
        case 5 where v1 && parts.part(2, is: "stores") && parts.part(4, is: "changes"): self = .store(.changes)
        case 5 where v1 && parts.part(2, is: "stores") && parts.part(4, is: "events"): self = .store(.events)
        default: self = .unknown
        }
    }
}
