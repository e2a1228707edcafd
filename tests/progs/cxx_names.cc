// SPDX-License-Identifier: MIT
// cxx_names - a traced C++ program: a method in a namespace, a template, an exception,
// and a template whose demangled name is over a thousand characters long.
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

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

using Deep = std::map<std::string, std::vector<std::map<std::string, std::vector<std::string>>>>;

template <typename T> __attribute__((noinline)) std::size_t count_all(const T &v)
{
	return v.size();
}

__attribute__((noinline)) static void thrower(int n)
{
	if (n > 0)
		throw std::runtime_error("boom");
}

int main()
{
	shapes::Widget w{1};
	Deep deep;
	int total = w.poke(2) + twice<int>(3) + (int)count_all(deep);

	try {
		thrower(1);
	} catch (const std::exception &e) {
		total++;
	}
	std::printf("total %d\n", total);
	return total == 10 ? 0 : 1;
}
