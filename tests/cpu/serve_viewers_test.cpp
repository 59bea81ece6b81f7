// The fan-out of frames to the viewers of `nbody serve` (serve/viewers.h): the credit and "latest
// wins" rules of docs/serve.md ("Frames and viewers"), with the viewers played by the test: a
// slow viewer lowers only its own frame rate, memory stays bounded, control passes as it should.
// The frame message is decoded here by hand against the layout, and the message rate is run on a
// made-up clock.

#include "serve/viewers.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <stdexcept>
#include <thread>

namespace nbody {
namespace {

std::shared_ptr<const EncodedFrame> frameOf(std::uint64_t sequence) {
  auto frame = std::make_shared<EncodedFrame>();
  frame->sequence = sequence;
  frame->width = 1280;
  frame->height = 800;
  frame->jpeg = {0xff, 0xd8, 0xff, 0xd9};
  return frame;
}

// Takes the frame due to `viewer` and acknowledges it at once, as a fast viewer does: its
// sequence, or 0 when none was due.
std::uint64_t takeAndAcknowledge(ViewerBoard& board, ViewerId viewer) {
  const auto frame = board.takeFrameFor(viewer);
  if (!frame) return 0;
  board.acknowledge(viewer, frame->sequence);
  return frame->sequence;
}

std::uint64_t littleEndianAt(const std::vector<std::uint8_t>& bytes, std::size_t offset,
                             std::size_t size) {
  std::uint64_t value = 0;
  for (std::size_t k = 0; k < size; ++k) value += std::uint64_t(bytes.at(offset + k)) << (8 * k);
  return value;
}

TEST(ServeViewers, FrameMessageFollowsTheLayout) {
  EncodedFrame frame;
  frame.sequence = 0x0102030405060708;
  frame.width = 1920;
  frame.height = 1080;
  frame.still = true;
  frame.serverTime = 12.375;
  frame.jpeg = {0xff, 0xd8, 0x00, 0x42, 0xff, 0xd9};
  const std::vector<std::uint8_t> bytes = frameMessage(frame);
  ASSERT_EQ(bytes.size(), 28u + 6u);
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 4), "NBF1");
  EXPECT_EQ(bytes[4], 0x08);  // little-endian: the lowest byte first
  EXPECT_EQ(bytes[11], 0x01);
  EXPECT_EQ(littleEndianAt(bytes, 4, 8), 0x0102030405060708u);
  EXPECT_EQ(littleEndianAt(bytes, 12, 2), 1920u);
  EXPECT_EQ(littleEndianAt(bytes, 14, 2), 1080u);
  EXPECT_EQ(bytes[16], 0);  // JPEG
  EXPECT_EQ(bytes[17], 1);  // still
  EXPECT_EQ(littleEndianAt(bytes, 18, 2), 0u);
  const std::uint64_t timeBits = littleEndianAt(bytes, 20, 8);
  double time = 0;
  std::memcpy(&time, &timeBits, sizeof time);
  EXPECT_EQ(time, 12.375);
  EXPECT_EQ(std::vector<std::uint8_t>(bytes.begin() + 28, bytes.end()), frame.jpeg);

  frame.still = false;
  EXPECT_EQ(frameMessage(frame)[17], 0);
}

// What a viewer's write sends: the header of the layout, then the frame's own picture bytes.
TEST(ServeViewers, FrameMessagePartsAreTheHeaderAndTheFramesOwnPicture) {
  EncodedFrame frame = *frameOf(0x0102030405060708);
  frame.serverTime = 3.25;
  const FrameMessageParts parts = frameMessageParts(frame);
  const std::vector<std::uint8_t> whole = frameMessage(frame);
  EXPECT_EQ(std::vector<std::uint8_t>(parts.header.begin(), parts.header.end()),
            std::vector<std::uint8_t>(whole.begin(), whole.begin() + 28));
  EXPECT_EQ(parts.picture.data(), frame.jpeg.data()) << "the picture is not copied";
  EXPECT_EQ(parts.picture.size(), frame.jpeg.size());
}

// Every viewer is given the frame the board holds, so every write points at one picture.
TEST(ServeViewers, ViewersShareOneCopyOfAFramesPicture) {
  ViewerBoard board;
  const ViewerId first = *board.join();
  const ViewerId second = *board.join();
  board.publish(frameOf(1));
  const auto toFirst = board.takeFrameFor(first);
  const auto toSecond = board.takeFrameFor(second);
  ASSERT_TRUE(toFirst && toSecond);
  EXPECT_EQ(toFirst, board.latest());
  EXPECT_EQ(toSecond, board.latest());
  EXPECT_EQ(frameMessageParts(*toFirst).picture.data(), board.latest()->jpeg.data());
  EXPECT_EQ(frameMessageParts(*toSecond).picture.data(), board.latest()->jpeg.data());
}

TEST(ServeViewers, AViewerThatNeverAcknowledgesGetsItsCreditAndNoMore) {
  ViewerBoard board(4, 2);
  const ViewerId stalled = *board.join();
  const ViewerId fast = *board.join();
  std::vector<std::uint64_t> toStalled, toFast;
  for (std::uint64_t sequence = 1; sequence <= 50; ++sequence) {
    board.publish(frameOf(sequence));
    if (const auto frame = board.takeFrameFor(stalled)) toStalled.push_back(frame->sequence);
    toFast.push_back(takeAndAcknowledge(board, fast));
  }
  EXPECT_EQ(toStalled, (std::vector<std::uint64_t>{1, 2}));
  std::vector<std::uint64_t> every(50);
  for (std::size_t k = 0; k < every.size(); ++k) every[k] = k + 1;
  EXPECT_EQ(toFast, every);
  EXPECT_EQ(board.countersOf(stalled)->framesSent, 2u);
  EXPECT_EQ(board.countersOf(stalled)->framesAcknowledged, 0u);
  EXPECT_EQ(board.countersOf(fast)->framesSent, 50u);
  EXPECT_EQ(board.countersOf(fast)->framesAcknowledged, 50u);
}

// The same publishes on a board with a stalled viewer and on one without: the fast viewer gets the
// same frames and the latest is the same.
TEST(ServeViewers, AStalledViewerChangesNothingForTheOthers) {
  ViewerBoard alone, withStalled;
  const ViewerId fastAlone = *alone.join();
  const ViewerId stalled = *withStalled.join();
  const ViewerId fastBeside = *withStalled.join();
  for (std::uint64_t sequence = 1; sequence <= 100; ++sequence) {
    alone.publish(frameOf(sequence));
    withStalled.publish(frameOf(sequence));
    withStalled.takeFrameFor(stalled);
    if (sequence % 3 == 0) {
      EXPECT_EQ(takeAndAcknowledge(alone, fastAlone), takeAndAcknowledge(withStalled, fastBeside));
    }
  }
  EXPECT_EQ(alone.latest()->sequence, 100u);
  EXPECT_EQ(withStalled.latest()->sequence, 100u);
}

TEST(ServeViewers, ASlowViewerSkipsToTheLatestFrame) {
  ViewerBoard board;
  const ViewerId slow = *board.join();
  board.publish(frameOf(1));
  ASSERT_EQ(board.takeFrameFor(slow)->sequence, 1u);
  for (std::uint64_t sequence = 2; sequence <= 9; ++sequence) board.publish(frameOf(sequence));
  ASSERT_EQ(board.takeFrameFor(slow)->sequence, 9u);
  board.publish(frameOf(10));
  EXPECT_EQ(board.takeFrameFor(slow), nullptr) << "two unacknowledged: no credit left";
  board.acknowledge(slow, 1);
  for (std::uint64_t sequence = 11; sequence <= 20; ++sequence) board.publish(frameOf(sequence));
  EXPECT_EQ(board.takeFrameFor(slow)->sequence, 20u);
}

TEST(ServeViewers, AFrameIsSentToAViewerOnce) {
  ViewerBoard board;
  const ViewerId viewer = *board.join();
  EXPECT_EQ(board.takeFrameFor(viewer), nullptr) << "nothing published yet";
  board.publish(frameOf(1));
  EXPECT_EQ(takeAndAcknowledge(board, viewer), 1u);
  EXPECT_EQ(board.takeFrameFor(viewer), nullptr);
  // A viewer that joins later gets the latest frame.
  const ViewerId late = *board.join();
  EXPECT_EQ(takeAndAcknowledge(board, late), 1u);
}

// Frames 1 and 2 sent to `viewer` (a credit of 2) and not acknowledged, frame 3 published.
void spendTheCreditOnFramesOneAndTwo(ViewerBoard& board, ViewerId viewer) {
  board.publish(frameOf(1));
  board.takeFrameFor(viewer);
  board.publish(frameOf(2));
  board.takeFrameFor(viewer);
  board.publish(frameOf(3));
}

TEST(ServeViewers, AcknowledgementsOfFramesNotSentOrAcknowledgedChangeNothing) {
  ViewerBoard board(4, 2);
  const ViewerId viewer = *board.join();
  const ViewerId other = *board.join();
  spendTheCreditOnFramesOneAndTwo(board, viewer);
  for (const std::uint64_t never : {3u, 4u, 0u, 99u})
    EXPECT_FALSE(board.acknowledge(viewer, never));
  EXPECT_FALSE(board.acknowledge(other, 1));  // sent to `viewer`, not to `other`
  EXPECT_EQ(board.takeFrameFor(viewer), nullptr);
  EXPECT_TRUE(board.acknowledge(viewer, 1));
  EXPECT_EQ(board.takeFrameFor(viewer)->sequence, 3u);
  EXPECT_FALSE(board.acknowledge(viewer, 1));  // twice
  board.publish(frameOf(4));
  EXPECT_EQ(board.takeFrameFor(viewer), nullptr);
  EXPECT_EQ(board.countersOf(viewer)->framesAcknowledged, 1u);
  EXPECT_FALSE(board.acknowledge(12345, 2));  // no such viewer
}

// The board is the one record of the frames a viewer has not acknowledged (the server's ack
// timeout asks it).
TEST(ServeViewers, TheBoardSaysWhetherAViewerAwaitsAcknowledgement) {
  ViewerBoard board(4, 2);
  const ViewerId viewer = *board.join();
  EXPECT_FALSE(board.awaitsAcknowledgement(viewer));
  spendTheCreditOnFramesOneAndTwo(board, viewer);
  EXPECT_TRUE(board.awaitsAcknowledgement(viewer));
  ASSERT_TRUE(board.acknowledge(viewer, 1));
  EXPECT_TRUE(board.awaitsAcknowledgement(viewer)) << "frame 2 still waits";
  ASSERT_TRUE(board.acknowledge(viewer, 2));
  EXPECT_FALSE(board.awaitsAcknowledgement(viewer));
  EXPECT_FALSE(board.awaitsAcknowledgement(12345));  // no such viewer
}

// Frames arrive in order: a page that could not show frame 1 but acknowledges frame 2 has both
// credits back, and a later acknowledgement of frame 1 changes nothing.
TEST(ServeViewers, AnAcknowledgementCoversTheFramesSentBeforeIt) {
  ViewerBoard board(4, 2);
  const ViewerId viewer = *board.join();
  spendTheCreditOnFramesOneAndTwo(board, viewer);
  ASSERT_EQ(board.takeFrameFor(viewer), nullptr);
  board.acknowledge(viewer, 2);
  EXPECT_EQ(board.countersOf(viewer)->framesAcknowledged, 2u);
  board.acknowledge(viewer, 1);
  EXPECT_EQ(board.countersOf(viewer)->framesAcknowledged, 2u);
  EXPECT_EQ(board.takeFrameFor(viewer)->sequence, 3u);
  board.publish(frameOf(4));
  EXPECT_EQ(board.takeFrameFor(viewer)->sequence, 4u) << "both credits came back";
  board.publish(frameOf(5));
  EXPECT_EQ(board.takeFrameFor(viewer), nullptr);
}

TEST(ServeViewers, AFrameOlderThanTheLatestIsIgnored) {
  ViewerBoard board;
  board.publish(frameOf(5));
  board.publish(frameOf(3));
  EXPECT_EQ(board.latest()->sequence, 5u);
  const auto same = frameOf(5);
  board.publish(same);
  EXPECT_NE(board.latest(), same) << "an equal sequence is not newer";
  board.publish(nullptr);
  EXPECT_EQ(board.latest()->sequence, 5u);
  board.publish(frameOf(6));
  EXPECT_EQ(board.latest()->sequence, 6u);
}

TEST(ServeViewers, TheFirstViewerControlsUntilAnotherTakesControl) {
  ViewerBoard board;
  EXPECT_FALSE(board.controller());
  const ViewerId first = *board.join();
  const ViewerId second = *board.join();
  EXPECT_EQ(board.controller(), first);
  EXPECT_TRUE(board.mayControl(first));
  EXPECT_FALSE(board.mayControl(second));
  EXPECT_TRUE(board.takeControl(second));
  EXPECT_TRUE(board.mayControl(second));
  EXPECT_FALSE(board.mayControl(first));
  EXPECT_FALSE(board.takeControl(777)) << "no such viewer";
  EXPECT_EQ(board.controller(), second);
}

TEST(ServeViewers, ControlPassesToTheLongestConnectedViewer) {
  ViewerBoard board;
  const ViewerId a = *board.join();
  const ViewerId b = *board.join();
  const ViewerId c = *board.join();
  board.takeControl(c);
  board.leave(c);
  EXPECT_EQ(board.controller(), a);
  board.takeControl(b);
  board.leave(a);  // not the controller: control stays
  EXPECT_EQ(board.controller(), b);
  const ViewerId d = *board.join();
  board.leave(b);
  EXPECT_EQ(board.controller(), d);
  board.leave(d);
  EXPECT_FALSE(board.controller());
  EXPECT_EQ(board.viewerCount(), 0u);
  const ViewerId e = *board.join();
  EXPECT_EQ(board.controller(), e) << "the first to join while no one controls";
  EXPECT_FALSE(board.takeControl(d)) << "gone";
}

TEST(ServeViewers, NoMoreThanMostViewersMayJoin) {
  ViewerBoard board(2);
  const auto a = board.join();
  const auto b = board.join();
  ASSERT_TRUE(a && b);
  EXPECT_NE(*a, *b);
  EXPECT_FALSE(board.join());
  EXPECT_EQ(board.viewerCount(), 2u);
  board.leave(*a);
  const auto c = board.join();
  ASSERT_TRUE(c);
  EXPECT_NE(*c, *a) << "an id is not given twice";
  EXPECT_FALSE(board.countersOf(*a));
}

// The board holds the latest frame only; the frames in flight are held by whoever writes them
// (here the test, for the stalled viewer). Every other frame is freed as soon as it is replaced.
TEST(ServeViewers, MemoryIsBoundedWhileAViewerStalls) {
  const int credit = 2;
  ViewerBoard board(4, credit);
  const ViewerId stalled = *board.join();
  const ViewerId fast = *board.join();
  std::vector<std::shared_ptr<const EncodedFrame>> inFlight;
  std::vector<std::weak_ptr<const EncodedFrame>> published;
  for (std::uint64_t sequence = 1; sequence <= 10000; ++sequence) {
    auto frame = frameOf(sequence);
    published.push_back(frame);
    board.publish(std::move(frame));
    if (auto sent = board.takeFrameFor(stalled)) inFlight.push_back(std::move(sent));
    takeAndAcknowledge(board, fast);
  }
  std::size_t alive = 0;
  for (const auto& frame : published) alive += frame.expired() ? 0 : 1;
  EXPECT_EQ(alive, std::size_t(credit) + 1);
  EXPECT_EQ(inFlight.size(), std::size_t(credit));
  // Held by the test and the board: the latest; by the test alone: those in flight.
  EXPECT_EQ(published.back().use_count(), 1);
  for (const auto& frame : inFlight) EXPECT_EQ(frame.use_count(), 1);
  inFlight.clear();
  board.leave(stalled);
  alive = 0;
  for (const auto& frame : published) alive += frame.expired() ? 0 : 1;
  EXPECT_EQ(alive, 1u);
}

// A publisher and a viewer on two threads: the viewer sees increasing sequences and the last one.
TEST(ServeViewers, PublishingAndTakingMayRunOnTwoThreads) {
  ViewerBoard board;
  const ViewerId viewer = *board.join();
  constexpr std::uint64_t kFrames = 20000;
  std::thread publisher([&] {
    for (std::uint64_t sequence = 1; sequence <= kFrames; ++sequence)
      board.publish(frameOf(sequence));
  });
  std::uint64_t last = 0;
  bool increasing = true;
  while (last < kFrames) {
    const std::uint64_t got = takeAndAcknowledge(board, viewer);
    if (got == 0) continue;
    increasing = increasing && got > last;
    last = got;
  }
  publisher.join();
  EXPECT_TRUE(increasing);
  EXPECT_EQ(last, kFrames);
}

TEST(ServeViewers, BoardsNeedRoomAndCredit) {
  EXPECT_THROW(ViewerBoard(0, 2), std::invalid_argument);
  EXPECT_THROW(ViewerBoard(4, 0), std::invalid_argument);
}

// What `rate` answers to a message at each of `times`, in order.
std::vector<bool> answersAt(MessageRate& rate, const std::vector<double>& times) {
  std::vector<bool> answers;
  for (const double time : times) answers.push_back(rate.allow(time));
  return answers;
}

TEST(ServeMessageRate, AllowsABurstThenTheRate) {
  // Times that are exact in binary, so that the refill is exact too; at 100.125 half a message's
  // worth has come back.
  MessageRate rate(4, 3);
  EXPECT_EQ(answersAt(rate, {100, 100, 100, 100, 100.125, 100.25, 100.25}),
            (std::vector<bool>{true, true, true, false, false, true, false}));
  // A long pause refills the burst, not more.
  EXPECT_EQ(answersAt(rate, std::vector<double>(5, 1000.0)),
            (std::vector<bool>{true, true, true, false, false}));
}

TEST(ServeMessageRate, AClockThatGoesBackRefillsNothing) {
  MessageRate rate(1, 1);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double infinity = std::numeric_limits<double>::infinity();
  EXPECT_EQ(answersAt(rate, {50, 10, 50.5, 51, nan, infinity}),
            (std::vector<bool>{true, false, false, true, false, false}));
}

TEST(ServeMessageRate, HoldsOverALongRun) {
  MessageRate rate(100, 10);
  int allowed = 0;
  for (int k = 0; k < 100000; ++k) allowed += rate.allow(k * 0.0001) ? 1 : 0;  // 10 s at 10 kHz
  EXPECT_GE(allowed, 1000);
  EXPECT_LE(allowed, 1011);
}

TEST(ServeMessageRate, NeedsAPositiveRateAndABurst) {
  EXPECT_THROW(MessageRate(0, 5), std::invalid_argument);
  EXPECT_THROW(MessageRate(-1, 5), std::invalid_argument);
  EXPECT_THROW(MessageRate(std::numeric_limits<double>::infinity(), 5), std::invalid_argument);
  EXPECT_THROW(MessageRate(10, 0.5), std::invalid_argument);
  EXPECT_THROW(MessageRate(10, std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
}

}  // namespace
}  // namespace nbody
