from pathjudge.cli import run_cli

run_cli()
