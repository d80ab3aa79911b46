"""What the run of the registry tests uses: the models and conditions, toys included."""

MODELS = ["scripted/oracle", "scripted/always_abstain", "refuser/polite"]
CONDITIONS = ["tool", "halt"]
