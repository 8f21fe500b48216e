"""The `gavel` command (`main`): its table of subcommands (`commands`) and one module per handler, each
imported only when its command runs. `eval_run` judges a dataset's items for `gavel eval`, `demo` runs
every tool once for `gavel demo`.
"""
