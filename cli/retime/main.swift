import RetimeCLI
