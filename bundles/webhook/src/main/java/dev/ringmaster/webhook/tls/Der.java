package dev.ringmaster.webhook.tls;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * Just enough DER (ITU-T X.690) to write an X.509 v3 certificate ({@link CertificateBuilder}), to rewrap
 * PKCS#1 and SEC1 private keys as PKCS#8 and to read elements of structures the JDK or a key file
 * encoded (the algorithm of a PKCS#8 key, the public key bits of a SubjectPublicKeyInfo), so no ASN.1
 * library is needed at run time. Every value is written the one way DER allows: minimal lengths,
 * minimal two's-complement integers, {@code TRUE} as {@code 0xFF}.
 */
final class Der {

    static final int BOOLEAN = 0x01;
    static final int INTEGER = 0x02;
    static final int BIT_STRING = 0x03;
    static final int OCTET_STRING = 0x04;
    static final int NULL = 0x05;
    static final int OID = 0x06;
    static final int UTF8_STRING = 0x0C;
    static final int IA5_STRING = 0x16;
    static final int UTC_TIME = 0x17;
    static final int GENERALIZED_TIME = 0x18;
    static final int SEQUENCE = 0x30;
    static final int SET = 0x31;
    /** {@code [0]} constructed, explicit: the parameters of a SEC1 key. */
    static final int CONTEXT_0 = 0xA0;

    /** One element: its tag, where its content starts in {@code data}, and its length. */
    record Element(int tag, byte[] data, int offset, int length) {

        byte[] content() {
            return Arrays.copyOfRange(data, offset, offset + length);
        }

        /** The whole element, tag and length included. */
        byte[] encoded() {
            return element(tag, content());
        }

        /** The elements inside this constructed element. */
        Reader children() {
            return new Reader(data, offset, offset + length);
        }

        String hex() {
            return HexFormat.of().formatHex(data, offset, offset + length);
        }
    }

    /** Reads consecutive elements of a range. */
    static final class Reader {
        private final byte[] data;
        private final int end;
        private int position;

        Reader(byte[] data) {
            this(data, 0, data.length);
        }

        private Reader(byte[] data, int start, int end) {
            this.data = data;
            this.position = start;
            this.end = end;
        }

        boolean hasNext() {
            return position < end;
        }

        /** @throws IllegalArgumentException on a truncated or malformed element */
        Element next() {
            if (position + 2 > end) {
                throw new IllegalArgumentException("truncated DER element at " + position);
            }
            int tag = data[position++] & 0xFF;
            int length = data[position++] & 0xFF;
            if (length > 0x7F) {
                int bytes = length & 0x7F;
                if (bytes == 0 || bytes > 3 || position + bytes > end) {
                    throw new IllegalArgumentException("unsupported DER length at " + position);
                }
                length = 0;
                for (int i = 0; i < bytes; i++) {
                    length = (length << 8) | (data[position++] & 0xFF);
                }
            }
            if (length > end - position) {
                throw new IllegalArgumentException("DER element longer than its container at " + position);
            }
            Element element = new Element(tag, data, position, length);
            position += length;
            return element;
        }

        /** The next element, which must have this tag. */
        Element next(int expectedTag, String what) {
            Element element = next();
            if (element.tag() != expectedTag) {
                throw new IllegalArgumentException(what + ": expected DER tag 0x" + Integer.toHexString(expectedTag)
                        + ", found 0x" + Integer.toHexString(element.tag()));
            }
            return element;
        }
    }

    private static final DateTimeFormatter UTC_TIME_FORMAT = DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'");
    private static final DateTimeFormatter GENERALIZED_TIME_FORMAT = DateTimeFormatter.ofPattern("yyyyMMddHHmmss'Z'");

    private Der() {
    }

    // ---- writing

    /** One element: tag, length, contents. */
    static byte[] element(int tag, byte[]... contents) {
        ByteArrayOutputStream content = new ByteArrayOutputStream();
        for (byte[] part : contents) {
            content.writeBytes(part);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(content.size() + 6);
        out.write(tag);
        writeLength(out, content.size());
        out.writeBytes(content.toByteArray());
        return out.toByteArray();
    }

    private static void writeLength(ByteArrayOutputStream out, int length) {
        if (length < 0x80) {
            out.write(length);
            return;
        }
        int bytes = (Integer.SIZE - Integer.numberOfLeadingZeros(length) + 7) / 8;
        out.write(0x80 | bytes);
        for (int i = bytes - 1; i >= 0; i--) {
            out.write(length >>> (8 * i));
        }
    }

    static byte[] sequence(byte[]... contents) {
        return element(SEQUENCE, contents);
    }

    static byte[] sequence(List<byte[]> contents) {
        return sequence(contents.toArray(byte[][]::new));
    }

    static byte[] set(byte[]... contents) {
        return element(SET, contents);
    }

    static byte[] integer(BigInteger value) {
        return element(INTEGER, value.toByteArray()); // two's complement, minimal: what DER wants
    }

    static byte[] integer(long value) {
        return integer(BigInteger.valueOf(value));
    }

    static byte[] bool(boolean value) {
        return element(BOOLEAN, new byte[] {(byte) (value ? 0xFF : 0x00)});
    }

    static byte[] nullValue() {
        return element(NULL);
    }

    /** An OBJECT IDENTIFIER from its dotted form, e.g. {@code 2.5.29.19}. */
    static byte[] oid(String dotted) {
        String[] parts = dotted.split("\\.");
        if (parts.length < 2) {
            throw new IllegalArgumentException("an OID has at least two arcs: " + dotted);
        }
        long first = Long.parseLong(parts[0]);
        long second = Long.parseLong(parts[1]);
        if (first > 2 || first < 2 && second > 39) {
            throw new IllegalArgumentException("not an OID: " + dotted);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writeBase128(out, first * 40 + second);
        for (int i = 2; i < parts.length; i++) {
            writeBase128(out, Long.parseLong(parts[i]));
        }
        return element(OID, out.toByteArray());
    }

    private static void writeBase128(ByteArrayOutputStream out, long value) {
        if (value < 0) {
            throw new IllegalArgumentException("negative OID arc " + value);
        }
        int groups = Math.max(1, (Long.SIZE - Long.numberOfLeadingZeros(value) + 6) / 7);
        for (int i = groups - 1; i >= 0; i--) {
            int group = (int) (value >>> (7 * i)) & 0x7F;
            out.write(i == 0 ? group : group | 0x80);
        }
    }

    static byte[] octetString(byte[] value) {
        return element(OCTET_STRING, value);
    }

    /** A BIT STRING of whole bytes (a key or a signature). */
    static byte[] bitString(byte[] value) {
        return element(BIT_STRING, new byte[] {0}, value);
    }

    /**
     * A named-bit BIT STRING (KeyUsage) with the given bits set, bit 0 being the most significant bit
     * of the first byte; DER drops trailing zero bits and states how many bits of the last byte are
     * unused.
     */
    static byte[] namedBits(int... bits) {
        int highest = Arrays.stream(bits).max().orElseThrow(() -> new IllegalArgumentException("no bit set"));
        byte[] value = new byte[highest / 8 + 1];
        for (int bit : bits) {
            value[bit / 8] |= (byte) (0x80 >>> (bit % 8));
        }
        int unused = 7 - highest % 8;
        return element(BIT_STRING, new byte[] {(byte) unused}, value);
    }

    static byte[] utf8String(String value) {
        return element(UTF8_STRING, value.getBytes(StandardCharsets.UTF_8));
    }

    /** An IA5String (ASCII), as a dNSName is. */
    static byte[] ia5String(String value) {
        return element(IA5_STRING, ascii(value));
    }

    static byte[] ascii(String value) {
        for (int i = 0; i < value.length(); i++) {
            if (value.charAt(i) > 0x7F) {
                throw new IllegalArgumentException("not ASCII: " + value);
            }
        }
        return value.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * An X.509 Time (RFC 5280 section 4.1.2.5): UTCTime through 2049, GeneralizedTime from 2050 on,
     * both in UTC to the second.
     */
    static byte[] time(Instant instant) {
        ZonedDateTime utc = instant.truncatedTo(ChronoUnit.SECONDS).atZone(ZoneOffset.UTC);
        if (utc.getYear() >= 1950 && utc.getYear() < 2050) {
            return element(UTC_TIME, ascii(UTC_TIME_FORMAT.format(utc)));
        }
        return element(GENERALIZED_TIME, ascii(GENERALIZED_TIME_FORMAT.format(utc)));
    }

    /** {@code [n] EXPLICIT}: a constructed context-specific element wrapping whole elements. */
    static byte[] explicit(int number, byte[]... elements) {
        return element(0xA0 | number, elements);
    }

    /** {@code [n] IMPLICIT} of a primitive type: the type's contents under a context-specific tag. */
    static byte[] implicitPrimitive(int number, byte[] contents) {
        return element(0x80 | number, contents);
    }

    static byte[] hex(String hex) {
        return HexFormat.of().parseHex(hex);
    }
}
