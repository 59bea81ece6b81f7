// The one-off requests of the panel and the keys (app/live/requests.h), and the frame orders that
// carry them to a distributed run's other ranks (app/live/frame_orders.h).

#include <gtest/gtest.h>

#include "app/live/frame_orders.h"
#include "app/live/requests.h"

namespace nbody {
namespace {

TEST(Requests, ATakenRequestIsGoneAndTheOthersStayInOrder) {
  Requests asks;
  asks.ask(Request::Reset);
  asks.ask(Request::Screenshot);
  asks.ask(Request::Reset);
  EXPECT_TRUE(asks.take(Request::Reset));
  EXPECT_FALSE(asks.take(Request::Reset));
  EXPECT_FALSE(asks.asked(Request::Reset));
  ASSERT_EQ(asks.entries().size(), 1u);
  EXPECT_EQ(asks.entries()[0].kind, Request::Screenshot);
}

TEST(Requests, TheLatestValueOfAKindWins) {
  Requests asks;
  EXPECT_FALSE(asks.takeValue(Request::SeekSeries));
  asks.ask(Request::SeekSeries, 4);
  asks.ask(Request::StepSeries, -1);
  asks.ask(Request::SeekSeries, 9);
  EXPECT_EQ(asks.takeValue(Request::SeekSeries), 9);
  EXPECT_EQ(asks.takeValue(Request::StepSeries), -1);
  EXPECT_TRUE(asks.empty());
}

TEST(FrameOrders, CarryTheRequestsAndTheRunToTheOtherRanks) {
  FrameOrder order;
  order.settings.run.engine = "compute";
  order.settings.run.engineSettings["unroll"] = "4";
  order.settings.run.method = "rk4";
  order.settings.run.scene.name = "disk";
  order.settings.run.scene.options.bodyCount = 1234;
  order.settings.run.step.dt = 0.125;
  order.settings.snapshotPath = "a b.nbody";
  order.settings.requests.ask(Request::LoadSnapshot);
  order.settings.requests.ask(Request::RemoveKeyframe, (std::int64_t(1) << 40) + 3);
  order.settings.requests.ask(Request::Reset);
  order.steps = 7;
  const FrameOrder back = decodeOrder(encodeOrder(order));
  EXPECT_EQ(back.settings.requests, order.settings.requests);
  EXPECT_EQ(back.settings.run.engine, "compute");
  EXPECT_EQ(back.settings.run.engineSettings, order.settings.run.engineSettings);
  EXPECT_EQ(back.settings.run.method, "rk4");
  EXPECT_TRUE(back.settings.run.scene == order.settings.run.scene);
  EXPECT_EQ(back.settings.run.step.dt, 0.125);
  EXPECT_EQ(back.settings.snapshotPath, "a b.nbody");
  EXPECT_EQ(back.steps, 7);
  EXPECT_FALSE(back.quit);
}

TEST(FrameOrders, AnOrderCutShortIsRefused) {
  FrameOrder order;
  order.settings.requests.ask(Request::CheckAccuracy);
  std::vector<std::byte> bytes = encodeOrder(order);
  bytes.resize(bytes.size() - 1);
  EXPECT_THROW(decodeOrder(bytes), std::logic_error);
}

}  // namespace
}  // namespace nbody
