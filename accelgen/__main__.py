import sys

from accelgen.gen.cli import main

sys.exit(main())
