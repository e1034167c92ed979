"""The API layer: the store, scopes and their verbs, results, settings, the spill policy, stubs, shapes, the
model-facing contract and the inspector. It decides what happens; it knows no SQL and no paths."""
