from speechstudio.cli import main

raise SystemExit(main())
