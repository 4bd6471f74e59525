// The whole domain kernel for the outer rings (adapters, composition roots,
// tests), which implement or drive the ports of every context. Inside the
// kernel no context imports this: each imports only the contexts that
// Package.swift lets it depend on, and the compiler holds it to that.
@_exported import RetimeAuth
@_exported import RetimeDI
@_exported import RetimeEnforcement
@_exported import RetimeGroup
@_exported import RetimeHistory
@_exported import RetimeSchedule
@_exported import RetimeSession
@_exported import RetimeShared
@_exported import RetimeSync
