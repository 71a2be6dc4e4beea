package dev.ringmaster.examples.checksum;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves forward by a fixed step every time it is read. */
final class SteppingClock extends Clock {

    private final AtomicLong millis;
    private final long step;

    SteppingClock(long startMillis, long step) {
        this.millis = new AtomicLong(startMillis);
        this.step = step;
    }

    @Override
    public long millis() {
        return millis.getAndAdd(step);
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException();
    }
}
