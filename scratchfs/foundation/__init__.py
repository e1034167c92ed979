"""The foundation every layer stands on: errors, limits and defaults, argument checks, UTF-8 helpers, fork
generations."""
