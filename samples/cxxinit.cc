/* cxxinit (C++): a global object whose constructor runs before main and whose destructor runs
 * after it. Its unit must be registered before the constructor runs, or the constructor's count
 * lands in slot 0.
 *   Init::Init -> setup(1) before main; main -> setup(2), setup(3); Init::~Init -> teardown after.
 * Expected: main 1, setup 3, teardown 1, Init::Init 1, Init::~Init 1;
 * arcs <spontaneous>->main 1, main->setup 2, Init::Init->setup 1, Init::~Init->teardown 1. */
#include "sample.h"

static volatile int sink;

NOINL void setup(int k)
{
	sink += k;
}

NOINL void teardown()
{
	sink--;
}

struct Init {
	NOINL Init()
	{
		setup(1);
		BARRIER();
	}
	NOINL ~Init()
	{
		teardown();
		BARRIER();
	}
};

static Init the_init;

int main()
{
	setup(2);
	BARRIER();
	setup(3);
	BARRIER();
	return sink != 6;
}
