package dev.ringmaster.webhook.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.time.Instant;
import java.util.HexFormat;
import org.bouncycastle.asn1.ASN1Encoding;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.ASN1Primitive;
import org.bouncycastle.asn1.DERBitString;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.junit.jupiter.api.Test;

/** The encoder's pieces against X.690 examples and against Bouncy Castle's DER encoder. */
class DerTest {

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    @Test
    void lengthsUseTheShortFormUpTo127AndTheFewestBytesAfter() {
        assertThat(hex(Der.octetString(new byte[127])).substring(0, 4)).isEqualTo("047f");
        assertThat(hex(Der.octetString(new byte[128])).substring(0, 6)).isEqualTo("048180");
        assertThat(hex(Der.octetString(new byte[255])).substring(0, 6)).isEqualTo("0481ff");
        assertThat(hex(Der.octetString(new byte[256])).substring(0, 8)).isEqualTo("04820100");
        assertThat(hex(Der.octetString(new byte[65536])).substring(0, 10)).isEqualTo("0483010000");
    }

    @Test
    void integersAreMinimalTwosComplement() {
        assertThat(hex(Der.integer(0))).isEqualTo("020100");
        assertThat(hex(Der.integer(127))).isEqualTo("02017f");
        assertThat(hex(Der.integer(128))).isEqualTo("02020080"); // a leading zero keeps it positive
        assertThat(hex(Der.integer(256))).isEqualTo("02020100");
        assertThat(hex(Der.integer(-1))).isEqualTo("0201ff");
        BigInteger big = new BigInteger("ff".repeat(16), 16);
        assertThat(hex(Der.integer(big))).isEqualTo("021100" + "ff".repeat(16));
    }

    @Test
    void objectIdentifiersAsBouncyCastleEncodesThem() throws Exception {
        for (String oid : new String[] {"1.2.840.113549.1.1.11", "1.2.840.10045.4.3.2", "2.5.29.19", "2.5.4.3",
                "1.3.6.1.5.5.7.3.1", "2.999.3", "0.9.2342.19200300.100.1.25"}) {
            assertThat(hex(Der.oid(oid))).as(oid).isEqualTo(hex(new ASN1ObjectIdentifier(oid).getEncoded(ASN1Encoding.DER)));
        }
        assertThat(hex(Der.oid("1.2.840.113549"))).isEqualTo("06062a864886f70d");
        assertThatThrownBy(() -> Der.oid("1.40")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Der.oid("3.1")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void namedBitsDropTrailingZerosAsDerRequires() throws Exception {
        // keyUsage digitalSignature (0), keyCertSign (5), cRLSign (6): 03 02 01 86
        assertThat(hex(Der.namedBits(0, 5, 6))).isEqualTo("03020186")
                .isEqualTo(hex(new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyCertSign | KeyUsage.cRLSign)
                        .toASN1Primitive().getEncoded(ASN1Encoding.DER)));
        assertThat(hex(Der.namedBits(0))).isEqualTo("03020780");
        assertThat(hex(Der.namedBits(0, 2))).isEqualTo(hex(new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment)
                .toASN1Primitive().getEncoded(ASN1Encoding.DER)));
        assertThat(hex(Der.namedBits(8))).isEqualTo("0303070080"); // decipherOnly: a second byte
        assertThat(hex(Der.bitString(new byte[] {1, 2}))).isEqualTo(hex(new DERBitString(new byte[] {1, 2}).getEncoded()));
    }

    @Test
    void timesAreUtcTimeUntil2049AndGeneralizedTimeFrom2050() {
        // to the second: a fraction is cut, not rounded
        assertThat(new String(Der.time(Instant.parse("2049-12-31T23:59:59.999Z"))).substring(2)).isEqualTo("491231235959Z");
        assertThat(Der.time(Instant.parse("2049-12-31T23:59:59Z"))[0]).isEqualTo((byte) Der.UTC_TIME);
        assertThat(Der.time(Instant.parse("2050-01-01T00:00:00Z"))[0]).isEqualTo((byte) Der.GENERALIZED_TIME);
        assertThat(new String(Der.time(Instant.parse("2050-01-01T00:00:00Z"))).substring(2)).isEqualTo("20500101000000Z");
    }

    @Test
    void whatItWritesBouncyCastleReadsAndWritesTheSame() throws Exception {
        byte[] structure = Der.sequence(Der.integer(5), Der.bool(true), Der.nullValue(), Der.utf8String("größe"),
                Der.ia5String("sharder.sharding-system.svc"), Der.explicit(3, Der.sequence(Der.octetString(new byte[300]))),
                Der.set(Der.oid("2.5.4.3")), Der.implicitPrimitive(2, Der.ascii("a.b")));
        assertThat(ASN1Primitive.fromByteArray(structure).getEncoded(ASN1Encoding.DER)).isEqualTo(structure);
        Der.Reader children = new Der.Reader(structure).next(Der.SEQUENCE, "structure").children();
        int count = 0;
        for (; children.hasNext(); count++) {
            children.next();
        }
        assertThat(count).isEqualTo(8);
        assertThatThrownBy(() -> Der.ia5String("größe")).isInstanceOf(IllegalArgumentException.class);
    }
}
