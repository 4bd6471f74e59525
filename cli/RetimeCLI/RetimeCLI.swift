public enum RetimeCLI {}
