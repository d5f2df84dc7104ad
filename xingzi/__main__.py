from xingzi.cli import program

program()
