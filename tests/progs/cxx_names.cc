// SPDX-License-Identifier: MIT
// cxx_names - a traced C++ program: a method in a namespace, a template, an exception.
#include <cstdio>
#include <stdexcept>

namespace shapes {
struct Widget {
	int size;
	__attribute__((noinline)) int poke(int by);
};

__attribute__((noinline)) int Widget::poke(int by)
{
	size += by;
	return size;
}
} // namespace shapes

template <typename T> __attribute__((noinline)) T twice(T v)
{
	return v + v;
}

__attribute__((noinline)) static void thrower(int n)
{
	if (n > 0)
		throw std::runtime_error("boom");
}

int main()
{
	shapes::Widget w{1};
	int total = w.poke(2) + twice<int>(3);

	try {
		thrower(1);
	} catch (const std::exception &e) {
		total++;
	}
	std::printf("total %d\n", total);
	return total == 10 ? 0 : 1;
}
