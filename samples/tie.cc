// tie.cc: C++ functions whose names sort differently mangled and demangled (zeta, alpha, ns::beta,
// K::gamma), zeta called four times, the others once, and K::gamma's loop 50000000 times, where the
// time goes; ties in calls sort on the names (t232, t233; no .expect).
static volatile int sink;
__attribute__((noinline)) void zeta(int x) { sink += x; }
__attribute__((noinline)) void alpha(double x) { sink += (int)x; }
namespace ns { __attribute__((noinline)) void beta() { sink += 2; } }
struct K { __attribute__((noinline)) void gamma(long n); };
void K::gamma(long n) { for (long i = 0; i < n; i++) sink += 5; }
int main()
{
	zeta(1); alpha(2); ns::beta();
	K k;
	k.gamma(50000000);
	for (int i = 0; i < 3; i++)
		zeta(i);
	return 0;
}
