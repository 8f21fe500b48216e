"""The judge engine: backends, prompts, the repair ladder and the judge itself."""
