// SPDX-License-Identifier: GPL-2.0-only
/*
 * A C++ server in miniature: an acceptor thread queues requests, worker
 * threads take them off the queue (std::mutex, std::condition_variable)
 * and handle each in a span with nested parse and respond spans, through
 * handler classes chosen at run time; a typed event closes each request.
 * cxx_server [REQUESTS [WORKERS]]; prints the number handled.
 */
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#include <ust/marker.h>
#include <ust/span.h>
#define UST_CREATE_PROBES
#include "cxx_server_tp.h"

namespace srv {

struct Request {
	int id;
	std::string path;
};

class Handler {
public:
	virtual ~Handler() = default;
	virtual int respond(const Request &req, std::string &body) = 0;
};

class StaticHandler : public Handler {
public:
	int respond(const Request &req, std::string &body) override
	{
		body.assign(static_cast<size_t>(req.id % 5) * 10 + 10, 'x');
		return 200;
	}
};

class NotFoundHandler : public Handler {
public:
	int respond(const Request &, std::string &body) override
	{
		body = "not found";
		return 404;
	}
};

template <typename Item>
class Queue {
public:
	void push(Item item)
	{
		{
			std::lock_guard<std::mutex> lock(mutex_);
			items_.push_back(std::move(item));
		}
		ready_.notify_one();
	}
	/* False once closed and drained. */
	bool pop(Item &item)
	{
		std::unique_lock<std::mutex> lock(mutex_);
		ready_.wait(lock, [this] { return closed_ || !items_.empty(); });
		if (items_.empty())
			return false;
		item = std::move(items_.front());
		items_.pop_front();
		return true;
	}
	void close()
	{
		{
			std::lock_guard<std::mutex> lock(mutex_);
			closed_ = true;
		}
		ready_.notify_all();
	}

private:
	std::mutex mutex_;
	std::condition_variable ready_;
	std::deque<Item> items_;
	bool closed_ = false;
};

class Server {
public:
	explicit Server(int workers) : workers_(workers) {}

	int run(int requests)
	{
		std::vector<std::thread> threads;
		for (int w = 0; w < workers_; w++)
			threads.emplace_back([this] { work(); });
		for (int i = 0; i < requests; i++) {
			std::string path = i % 4 == 3 ? "/missing/" + std::to_string(i)
						      : "/static/" + std::to_string(i);
			trace_mark(srv, accept, "id %d path %s", i, path.c_str());
			queue_.push(Request{i, path});
		}
		queue_.close();
		for (auto &t : threads)
			t.join();
		return handled_;
	}

private:
	void work()
	{
		StaticHandler found;
		NotFoundHandler missing;
		Request req;

		while (queue_.pop(req)) {
			ust_span_begin(srv, request, "id %d", req.id);
			ust_span_begin(srv, parse);
			Handler &h = req.path.compare(0, 8, "/static/") == 0
				     ? static_cast<Handler &>(found) : missing;
			ust_span_end(srv, parse);
			ust_span_begin(srv, respond);
			std::string body;
			int status = h.respond(req, body);
			ust_span_end(srv, respond, "status %d", status);
			trace_srv_request_done(req.id, req.path.c_str(), status, body.size());
			ust_span_end(srv, request, "id %d", req.id);
			std::lock_guard<std::mutex> lock(count_);
			handled_++;
		}
	}

	int workers_;
	Queue<Request> queue_;
	std::mutex count_;
	int handled_ = 0;
};

} // namespace srv

int main(int argc, char **argv)
{
	int requests = argc > 1 ? std::atoi(argv[1]) : 100;
	int workers = argc > 2 ? std::atoi(argv[2]) : 2;

	std::printf("%d\n", srv::Server(workers).run(requests));
	return 0;
}
