from hubtui.cli import main

raise SystemExit(main())
