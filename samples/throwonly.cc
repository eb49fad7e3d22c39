// throwonly: C++ functions whose bodies never fall through: one whose only exit is its own throw,
// one ending in a call to a [[noreturn]] thrower, one an endless loop left only by an exception.
// Each call must end when the exception is caught: main's handlers end them (the catch hook).
// Expected at every -O level: main 1, thrower 3, usage 3, loops 3, fatal 6, die 0; arcs
// main->thrower 3, main->usage 3, main->loops 3, usage->fatal 3, loops->fatal 3; nothing repaired.
#include <cstdlib>
#include <stdexcept>

#include "sample.h"

[[noreturn]] NOINL void fatal(const char *m)
{
	throw std::runtime_error(m);
}

NOINL void thrower(int x)
{
	throw std::runtime_error(x ? "odd" : "even");
}

NOINL void loops()
{
	for (;;)
		fatal("loop");
}

[[noreturn]] NOINL void die()
{
	std::exit(3);
}

NOINL void usage()
{
	fatal("usage");
}

int main(int argc, char **)
{
	int caught = 0;

	if (argc > 5)
		die();
	for (int i = 0; i < 3; i++) {
		try {
			thrower(i);
		} catch (const std::exception &) {
			caught++;
		}
		try {
			usage();
		} catch (const std::exception &) {
			caught++;
		}
		try {
			loops();
		} catch (const std::exception &) {
			caught++;
		}
	}
	return caught != 9;
}
