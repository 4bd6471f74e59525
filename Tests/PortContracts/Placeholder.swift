enum PortContractsPlaceholder {}
