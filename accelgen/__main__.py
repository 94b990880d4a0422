import sys

from accelgen.cli import main

sys.exit(main())
