from xingzi.cli import main

raise SystemExit(main())
