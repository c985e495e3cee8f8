// SPDX-License-Identifier: LGPL-2.1-only
// The C++ library func_calls loads with dlopen(): functions in a
// namespace and a class, whose names test_func.py expects demangled.
namespace shapes {

class Square {
public:
	explicit Square(int side) : side_(side) {}
	__attribute__((noinline)) int area(int scale) const { return side_ * side_ * scale; }

private:
	int side_;
};

} // namespace shapes

extern "C" int func_cxx_run(int n)
{
	shapes::Square sq(3);
	int total = 0;

	for (int i = 0; i < n; i++)
		total += sq.area(i);
	return total;
}
