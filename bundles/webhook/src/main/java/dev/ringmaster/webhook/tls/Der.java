package dev.ringmaster.webhook.tls;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * Just enough DER (X.690) to rewrap PKCS#1 and SEC1 private keys as PKCS#8 and to read the
 * algorithm of a PKCS#8 key, so no ASN.1 library is needed at run time.
 */
final class Der {

    static final int INTEGER = 0x02;
    static final int OCTET_STRING = 0x04;
    static final int NULL = 0x05;
    static final int OID = 0x06;
    static final int SEQUENCE = 0x30;
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

    private Der() {
    }

    static byte[] element(int tag, byte[]... contents) {
        ByteArrayOutputStream content = new ByteArrayOutputStream();
        for (byte[] part : contents) {
            content.writeBytes(part);
        }
        int length = content.size();
        ByteArrayOutputStream out = new ByteArrayOutputStream(length + 6);
        out.write(tag);
        if (length < 0x80) {
            out.write(length);
        } else if (length < 0x100) {
            out.write(0x81);
            out.write(length);
        } else if (length < 0x10000) {
            out.write(0x82);
            out.write(length >> 8);
            out.write(length);
        } else {
            out.write(0x83);
            out.write(length >> 16);
            out.write(length >> 8);
            out.write(length);
        }
        out.writeBytes(content.toByteArray());
        return out.toByteArray();
    }

    static byte[] sequence(byte[]... contents) {
        return element(SEQUENCE, contents);
    }

    static byte[] hex(String hex) {
        return HexFormat.of().parseHex(hex);
    }
}
