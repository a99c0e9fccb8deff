from pathjudge.cli import run

run()
